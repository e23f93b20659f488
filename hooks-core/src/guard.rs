//! Isolation of one handler call: a panic or a timeout becomes a [`FailureKind`], never a crash
//! or a hang of the emit.
//!
//! The guard borrows the call where the chain pinned it rather than owning it, so starting a
//! call copies nothing but a pointer, and the timer is armed only when the handler first
//! returns `Pending`: most handlers answer on their first poll, and for them a call costs one
//! `catch_unwind` and no timer registration at all.

use std::future::Future;
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::pin::Pin;
use std::task::{Context, Poll};
use std::time::Duration;

use crate::handler::{Answer, CallFuture};
use crate::outcome::FailureKind;
use crate::panic::panic_message;

/// A handler call with panic isolation and an optional timeout. `C` is a pinned pointer to
/// the call: a `Pin<&mut CallFuture>` where the chain pinned it, or a `Pin<Box<..>>`.
pub(crate) struct Guarded<C> {
    call: C,
    timeout: Option<Duration>,
    /// Armed at the first `Pending`; `None` before, and when no Tokio timer can be started.
    timer: Option<Pin<Box<tokio::time::Sleep>>>,
    /// Whether arming the timer was tried (and failed): then the call waits without a deadline.
    timer_unavailable: bool,
}

impl<C: Future<Output = Answer> + Unpin> Guarded<C> {
    #[inline]
    pub(crate) fn new(call: C, timeout: Option<Duration>) -> Self {
        Guarded {
            call,
            timeout,
            timer: None,
            timer_unavailable: false,
        }
    }
}

impl<C: Future<Output = Answer> + Unpin> Future for Guarded<C> {
    type Output = Answer;

    #[inline]
    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Answer> {
        let this = self.get_mut();
        let call = Pin::new(&mut this.call);
        match catch_unwind(AssertUnwindSafe(|| call.poll(cx))) {
            Ok(Poll::Ready(answer)) => Poll::Ready(answer),
            Err(payload) => {
                Poll::Ready(Answer::Failed(FailureKind::Panic(panic_message(&*payload))))
            }
            Ok(Poll::Pending) => this.poll_deadline(cx),
        }
    }
}

impl<C> Guarded<C> {
    /// The call is waiting: arms the deadline on the first wait, then checks it.
    #[cold]
    fn poll_deadline(&mut self, cx: &mut Context<'_>) -> Poll<Answer> {
        let Some(timeout) = self.timeout else {
            return Poll::Pending;
        };
        if self.timer.is_none() && !self.timer_unavailable {
            self.timer = arm_timer(timeout);
            self.timer_unavailable = self.timer.is_none();
        }
        match &mut self.timer {
            Some(sleep) => match sleep.as_mut().poll(cx) {
                Poll::Ready(()) => Poll::Ready(Answer::Failed(FailureKind::Timeout(timeout))),
                Poll::Pending => Poll::Pending,
            },
            None => Poll::Pending,
        }
    }
}

/// Starts the deadline, or `None` when this thread has no Tokio timer to start it with.
fn arm_timer(timeout: Duration) -> Option<Pin<Box<tokio::time::Sleep>>> {
    if tokio::runtime::Handle::try_current().is_err() {
        tracing::error!("hook handler timeouts need a Tokio runtime; waiting without a deadline");
        return None;
    }
    // A runtime built without `enable_time` panics here; that must not take the emit down.
    match catch_unwind(|| Box::pin(tokio::time::sleep(timeout))) {
        Ok(sleep) => Some(sleep),
        Err(_) => {
            tracing::error!(
                "hook handler timeouts need the Tokio time driver (enable_time or enable_all); \
                 waiting without a deadline"
            );
            None
        }
    }
}

/// Runs several guarded calls concurrently on the current task; resolves when all have.
pub(crate) struct JoinAll<'a> {
    /// Each call boxed, so that it stays pinned while the list is built and polled.
    calls: Vec<Option<Guarded<Pin<Box<CallFuture<'a>>>>>>,
    answers: Vec<Option<Answer>>,
}

impl<'a> JoinAll<'a> {
    pub(crate) fn new(calls: impl IntoIterator<Item = Guarded<Pin<Box<CallFuture<'a>>>>>) -> Self {
        let calls: Vec<_> = calls.into_iter().map(Some).collect();
        let answers = calls.iter().map(|_| None).collect();
        JoinAll { calls, answers }
    }
}

impl Future for JoinAll<'_> {
    type Output = Vec<Answer>;

    fn poll(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Self::Output> {
        let this = &mut *self;
        let mut pending = false;
        for (slot, answer) in this.calls.iter_mut().zip(this.answers.iter_mut()) {
            if let Some(call) = slot {
                match Pin::new(call).poll(cx) {
                    Poll::Ready(result) => {
                        *answer = Some(result);
                        *slot = None;
                    }
                    Poll::Pending => pending = true,
                }
            }
        }
        if pending {
            return Poll::Pending;
        }
        Poll::Ready(
            this.answers
                .iter_mut()
                .map(|answer| {
                    answer
                        .take()
                        .unwrap_or(Answer::Failed(FailureKind::InvalidResult(
                            "polled after completion".into(),
                        )))
                })
                .collect(),
        )
    }
}
