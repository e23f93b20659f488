
// ---- the guard call, the same in every agent's plugin ----

/** The project directory: the plugin's own directory, then `COMMAND.root`. */
function projectDir() {
  return resolve(dirname(fileURLToPath(import.meta.url)), COMMAND.root);
}

/** A block for a failure of `hooks`: the guard could not decide, so nothing runs. */
function failure(what) {
  return {
    decision: "block",
    reason: `hooks ${COMMAND.agent} ${what}; blocked because the guard could not decide`,
  };
}

/** Whether `answer` is one the plugin knows. */
function wellFormed(answer) {
  if (!answer || typeof answer !== "object" || Array.isArray(answer)) return false;
  switch (answer.decision) {
    case "proceed":
      return true;
    case "block":
      return typeof answer.reason === "string" && answer.reason.trim() !== "";
    case "rewrite":
      return (
        (answer.args !== null && typeof answer.args === "object" && !Array.isArray(answer.args)) ||
        typeof answer.prompt === "string"
      );
    default:
      return false;
  }
}

/** The answer of a finished run of `hooks`: its JSON when it exited 0 with one it knows (or a
 * block, whatever the exit code), else a failure. */
function readAnswer(code, signal, stdout, stderr) {
  let answer = null;
  try {
    answer = JSON.parse(stdout);
  } catch {
    answer = null;
  }
  if (wellFormed(answer) && (code === 0 || answer.decision === "block")) return answer;
  const said = stderr.trim() ? `: ${stderr.trim()}` : "";
  if (signal) return failure(`was killed (${signal})${said}`);
  if (code !== 0) return failure(`exited with ${code}${said}`);
  return failure(`gave an answer the plugin cannot read (${JSON.stringify(stdout.slice(0, 200))})${said}`);
}

/** Runs `hooks <agent> --config FILE` with `event` as JSON on stdin; resolves to its answer,
 * or to a block when it cannot be had. Never rejects. */
function askHooks(event) {
  return new Promise((done) => {
    let settled = false;
    let timer = null;
    const finish = (answer) => {
      if (settled) return;
      settled = true;
      if (timer) clearTimeout(timer);
      done(answer);
    };
    let child;
    try {
      const project = projectDir();
      child = spawn(COMMAND.binary, [COMMAND.agent, "--config", resolve(project, COMMAND.config)], {
        cwd: project,
        stdio: ["pipe", "pipe", "pipe"],
      });
    } catch (error) {
      finish(failure(`could not start (${error && error.message})`));
      return;
    }
    const out = [];
    const err = [];
    timer = setTimeout(() => {
      try {
        child.kill("SIGKILL");
      } catch {
        // already gone
      }
      finish(failure(`ran past ${COMMAND.timeout_ms} ms`));
    }, COMMAND.timeout_ms);
    child.on("error", (error) => finish(failure(`could not start (${error && error.message})`)));
    child.stdout.on("data", (chunk) => out.push(chunk));
    child.stderr.on("data", (chunk) => err.push(chunk));
    child.on("close", (code, signal) =>
      finish(readAnswer(code, signal, Buffer.concat(out).toString(), Buffer.concat(err).toString())),
    );
    child.stdin.on("error", () => {});
    try {
      child.stdin.end(JSON.stringify(event));
    } catch (error) {
      finish(failure(`could not be given the event (${error && error.message})`));
    }
  });
}

/** What `hooks` says for the user, on stderr. */
function showNotes(answer) {
  if (typeof answer.notes === "string" && answer.notes.trim() !== "") console.error(answer.notes);
}
