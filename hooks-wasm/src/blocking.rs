//! The synchronous entry points' bridge: a call is a future (see the runtime's docs), and a
//! caller without an executor gets one of this thread's own.

use std::cell::OnceCell;
use std::future::Future;

use tokio::runtime::{Builder, Handle, Runtime};

thread_local! {
    /// This thread's executor for synchronous calls, built at the first: a timer (deadlines,
    /// a guest's sleeps) and nothing else.
    static EXECUTOR: OnceCell<Result<Runtime, String>> = const { OnceCell::new() };
}

/// `future` run to its end on this thread.
///
/// A thread already inside an async runtime cannot block on another, so there the future runs
/// on a thread of its own, which this one waits for. A panic in the future is resumed here.
pub(crate) fn block_on<F>(future: F) -> Result<F::Output, String>
where
    F: Future + Send,
    F::Output: Send,
{
    if Handle::try_current().is_err() {
        return here(future);
    }
    std::thread::scope(|scope| {
        scope
            .spawn(|| here(future))
            .join()
            .unwrap_or_else(|panic| std::panic::resume_unwind(panic))
    })
}

fn here<F: Future>(future: F) -> Result<F::Output, String> {
    EXECUTOR.with(|executor| {
        let executor = executor.get_or_init(|| {
            Builder::new_current_thread()
                .enable_time()
                .build()
                .map_err(|error| format!("cannot start an executor for the call: {error}"))
        });
        match executor {
            Ok(runtime) => Ok(runtime.block_on(future)),
            Err(error) => Err(error.clone()),
        }
    })
}
