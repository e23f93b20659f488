//! Isolation of one handler call: a panic or a timeout becomes a [`FailureKind`], never a crash
//! or a hang of the emit. An approval provider's call is isolated the same way (its timeout
//! is enforced by the caller).
//!
//! The timer is armed only when the handler first returns `Pending`: most handlers answer on
//! their first poll, and for them a call costs no timer registration at all.

use std::any::Any;
use std::future::Future;
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::pin::Pin;
use std::task::{Context, Poll};
use std::time::Duration;

use crate::approval::ApprovalError;
use crate::handler::{Answer, BoxFuture};
use crate::outcome::FailureKind;

/// A handler call with panic isolation and an optional timeout.
pub(crate) struct Guarded<'a> {
    call: BoxFuture<'a, Answer>,
    timeout: Option<Duration>,
    timer: Timer,
}

enum Timer {
    Unarmed,
    Armed(Pin<Box<tokio::time::Sleep>>),
    /// No Tokio timer is available here; the call waits without a deadline.
    Unavailable,
}

impl<'a> Guarded<'a> {
    pub(crate) fn new(call: BoxFuture<'a, Answer>, timeout: Option<Duration>) -> Self {
        Guarded {
            call,
            timeout,
            timer: Timer::Unarmed,
        }
    }
}

impl Future for Guarded<'_> {
    type Output = Answer;

    fn poll(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Answer> {
        let this = &mut *self;
        match catch_unwind(AssertUnwindSafe(|| this.call.as_mut().poll(cx))) {
            Ok(Poll::Ready(answer)) => return Poll::Ready(answer),
            Err(payload) => {
                return Poll::Ready(Answer::Failed(FailureKind::Panic(panic_message(&*payload))));
            }
            Ok(Poll::Pending) => {}
        }
        let Some(timeout) = this.timeout else {
            return Poll::Pending;
        };
        if let Timer::Unarmed = this.timer {
            this.timer = arm_timer(timeout);
        }
        match &mut this.timer {
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

fn panic_message(payload: &(dyn Any + Send)) -> String {
    if let Some(message) = payload.downcast_ref::<&str>() {
        (*message).to_owned()
    } else if let Some(message) = payload.downcast_ref::<String>() {
        message.clone()
    } else {
        "non-string panic payload".to_owned()
    }
}

/// An approval provider's answer with panic isolation: a panic, when the call is made or
/// while it is polled, becomes an [`ApprovalError`] carrying the panic message.
pub(crate) struct CatchPanic<'a> {
    call: Result<BoxFuture<'a, Result<String, ApprovalError>>, Option<String>>,
}

impl<'a> CatchPanic<'a> {
    pub(crate) fn new(
        start: impl FnOnce() -> BoxFuture<'a, Result<String, ApprovalError>>,
    ) -> Self {
        CatchPanic {
            call: catch_unwind(AssertUnwindSafe(start))
                .map_err(|payload| Some(panic_message(&*payload))),
        }
    }
}

impl Future for CatchPanic<'_> {
    type Output = Result<String, ApprovalError>;

    fn poll(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Self::Output> {
        let message = match &mut self.call {
            Err(message) => message.take().unwrap_or_default(),
            Ok(call) => match catch_unwind(AssertUnwindSafe(|| call.as_mut().poll(cx))) {
                Ok(poll) => return poll,
                Err(payload) => panic_message(&*payload),
            },
        };
        Poll::Ready(Err(ApprovalError(format!("it panicked: {message}"))))
    }
}

/// Runs several guarded calls concurrently on the current task; resolves when all have.
pub(crate) struct JoinAll<'a> {
    calls: Vec<Option<Guarded<'a>>>,
    answers: Vec<Option<Answer>>,
}

impl<'a> JoinAll<'a> {
    pub(crate) fn new(calls: Vec<Guarded<'a>>) -> Self {
        let answers = calls.iter().map(|_| None).collect();
        JoinAll {
            calls: calls.into_iter().map(Some).collect(),
            answers,
        }
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
