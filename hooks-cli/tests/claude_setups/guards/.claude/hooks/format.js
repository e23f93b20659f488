// Formats the file just written; prints what it did, as formatters do.
let raw = '';
process.stdin.on('data', (chunk) => (raw += chunk));
process.stdin.on('end', () => {
  const input = JSON.parse(raw);
  const file = (input.tool_input || {}).file_path || 'nothing';
  console.log(`formatted ${file}`);
  process.exit(0);
});
