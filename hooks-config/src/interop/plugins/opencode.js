// The `hooks` guard for OpenCode, written by `hooks init opencode` (and checked by `hooks
// doctor`). Before each tool call and each prompt, OpenCode runs this plugin, which hands the
// call to `hooks opencode` and obeys its answer: a block throws (OpenCode stops the call with
// the reason), a rewrite replaces the tool's arguments or the prompt's text. Any failure of
// `hooks` (missing binary, crash, timeout, an answer it cannot read) blocks.
import { spawn } from "node:child_process";
import { dirname, resolve } from "node:path";
import { fileURLToPath } from "node:url";

const COMMAND = __HOOKS_COMMAND__;

/** Throws on a block (and on anything that is not a proceed or a rewrite of `kind`). */
function obey(answer, kind) {
  showNotes(answer);
  if (answer.decision === "proceed") return;
  if (answer.decision === "rewrite" && answer[kind] !== undefined) return;
  throw new Error(answer.decision === "block" ? answer.reason : failure("answered with a rewrite OpenCode cannot take here").reason);
}

export const HooksGuard = async ({ directory }) => ({
  "tool.execute.before": async (input, output) => {
    const answer = await askHooks({
      hook_event_name: "tool.execute.before",
      tool: input.tool,
      sessionID: input.sessionID,
      callID: input.callID,
      args: output.args,
      directory,
    });
    obey(answer, "args");
    if (answer.decision === "rewrite") {
      // OpenCode runs the tool with this very object: it is changed in place.
      for (const key of Object.keys(output.args)) delete output.args[key];
      Object.assign(output.args, answer.args);
    }
  },
  "chat.message": async (input, output) => {
    const texts = (output.parts || []).filter((part) => part.type === "text" && !part.synthetic);
    const answer = await askHooks({
      hook_event_name: "chat.message",
      sessionID: input.sessionID,
      messageID: input.messageID,
      prompt: texts.map((part) => part.text).join("\n"),
      directory,
    });
    obey(answer, "prompt");
    if (answer.decision === "rewrite") {
      texts.forEach((part, index) => {
        part.text = index === 0 ? answer.prompt : "";
      });
    }
  },
});
