// The `hooks` guard for Amp, written by `hooks init amp` (and checked by `hooks doctor`).
// Before each tool call, Amp runs this plugin, which hands the call to `hooks amp` and obeys
// its answer: a block is `reject-and-continue` with the reason, a rewrite is `modify` with the
// new input. Any failure of `hooks` (missing binary, crash, timeout, an answer it cannot read)
// blocks.
import { spawn } from "node:child_process";
import { dirname, resolve } from "node:path";
import { fileURLToPath } from "node:url";

const COMMAND = __HOOKS_COMMAND__;

export default function (amp) {
  amp.on("tool.call", async (event) => {
    try {
      const answer = await askHooks({
        hook_event_name: "tool.call",
        tool: event.tool,
        input: event.input,
        thread: event.thread && event.thread.id,
        toolUseID: event.toolUseID,
      });
      showNotes(answer);
      if (answer.decision === "proceed") return { action: "allow" };
      if (answer.decision === "rewrite" && answer.args) return { action: "modify", input: answer.args };
      if (answer.decision === "block") return { action: "reject-and-continue", message: answer.reason };
      return { action: "reject-and-continue", message: failure("answered with a rewrite Amp cannot take here").reason };
    } catch (error) {
      return { action: "reject-and-continue", message: failure(`failed in the plugin (${error && error.message})`).reason };
    }
  });
}
