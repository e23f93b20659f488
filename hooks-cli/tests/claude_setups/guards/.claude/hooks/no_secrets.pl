#!/usr/bin/env perl
# Keeps passwords out of prompts, and tells the user where they belong.
use strict;
use warnings;
local $/;
my $input = <STDIN>;
if ($input =~ /"prompt"\s*:\s*"[^"]*password/i) {
    print '{"decision": "block", "reason": "the prompt contains a password", ',
          '"systemMessage": "Passwords belong in the vault: run `vault put` instead."}', "\n";
}
exit 0;
