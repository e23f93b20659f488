#!/bin/bash
# A broken hook: Claude Code proceeds on any exit code but 2.
echo "something went wrong" >&2
exit 1
