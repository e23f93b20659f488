# Blocks `git push` with Claude Code's exit-code protocol: the reason on stderr, exit 2.
input=$(cat)
case "$input" in
  *'git push'*) echo "pushing is for humans: open a pull request instead" >&2; exit 2 ;;
esac
