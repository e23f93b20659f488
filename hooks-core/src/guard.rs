//! Isolation of one handler call: a panic or a timeout becomes a [`FailureKind`], never a crash
//! or a hang of the emit.
//!
//! The timer is armed only when the handler first returns `Pending`: most handlers answer on
//! their first poll, and for them a call costs no timer registration at all.

use std::future::Future;
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::pin::Pin;
use std::task::{Context, Poll};
use std::time::Duration;

use pin_project_lite::pin_project;

use crate::handler::{Answer, CallFuture};
use crate::outcome::FailureKind;
use crate::panic::panic_message;

pin_project! {
    /// A handler call with panic isolation and an optional timeout.
    pub(crate) struct Guarded<'a> {
        // Stored in place (see `CallFuture`), so it is pinned with the guard.
        #[pin]
        call: CallFuture<'a>,
        timeout: Option<Duration>,
        timer: Timer,
    }
}

enum Timer {
    Unarmed,
    Armed(Pin<Box<tokio::time::Sleep>>),
    /// No Tokio timer is available here; the call waits without a deadline.
    Unavailable,
}

impl<'a> Guarded<'a> {
    pub(crate) fn new(call: CallFuture<'a>, timeout: Option<Duration>) -> Self {
        Guarded {
            call,
            timeout,
            timer: Timer::Unarmed,
        }
    }
}

impl Future for Guarded<'_> {
    type Output = Answer;

    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Answer> {
        let this = self.project();
        let call = this.call;
        match catch_unwind(AssertUnwindSafe(|| call.poll(cx))) {
            Ok(Poll::Ready(answer)) => return Poll::Ready(answer),
            Err(payload) => {
                return Poll::Ready(Answer::Failed(FailureKind::Panic(panic_message(&*payload))));
            }
            Ok(Poll::Pending) => {}
        }
        let Some(timeout) = *this.timeout else {
            return Poll::Pending;
        };
        if let Timer::Unarmed = this.timer {
            *this.timer = arm_timer(timeout);
        }
        match this.timer {
            Timer::Armed(sleep) => match sleep.as_mut().poll(cx) {
                Poll::Ready(()) => Poll::Ready(Answer::Failed(FailureKind::Timeout(timeout))),
                Poll::Pending => Poll::Pending,
            },
            Timer::Unarmed | Timer::Unavailable => Poll::Pending,
        }
    }
}

/// Starts the deadline, or reports that this thread has no Tokio timer to start it with.
fn arm_timer(timeout: Duration) -> Timer {
    if tokio::runtime::Handle::try_current().is_err() {
        tracing::error!("hook handler timeouts need a Tokio runtime; waiting without a deadline");
        return Timer::Unavailable;
    }
    // A runtime built without `enable_time` panics here; that must not take the emit down.
    match catch_unwind(|| Box::pin(tokio::time::sleep(timeout))) {
        Ok(sleep) => Timer::Armed(sleep),
        Err(_) => {
            tracing::error!(
                "hook handler timeouts need the Tokio time driver (enable_time or enable_all); \
                 waiting without a deadline"
            );
            Timer::Unavailable
        }
    }
}

/// Runs several guarded calls concurrently on the current task; resolves when all have.
pub(crate) struct JoinAll<'a> {
    /// Boxed so that each stays pinned while the list is built and polled.
    calls: Vec<Option<Pin<Box<Guarded<'a>>>>>,
    answers: Vec<Option<Answer>>,
}

impl<'a> JoinAll<'a> {
    pub(crate) fn new(calls: impl IntoIterator<Item = Guarded<'a>>) -> Self {
        let calls: Vec<_> = calls.into_iter().map(|call| Some(Box::pin(call))).collect();
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
                match call.as_mut().poll(cx) {
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
