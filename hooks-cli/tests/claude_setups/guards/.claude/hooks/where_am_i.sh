#!/usr/bin/env bash
# Tells the model which package of the monorepo the session is in.
cwd=$(jq -r '.cwd')
relative=${cwd#"$CLAUDE_PROJECT_DIR"/}
jq -n --arg where "$relative" '{
  hookSpecificOutput: {
    hookEventName: "UserPromptSubmit",
    additionalContext: ("You are working in the package " + $where + ".")
  }
}'
