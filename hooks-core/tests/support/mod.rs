//! Handlers for tests: fixed answers that log when they run and what data they saw.

#![allow(dead_code)]

use std::sync::{Arc, Mutex};

use hooks_core::{HookFn, HookRegistry, HookResult};
use serde_json::Value;

/// Which handlers ran, in order, and the data each one saw.
#[derive(Clone, Default)]
pub struct Trace {
    calls: Arc<Mutex<Vec<(&'static str, Value)>>>,
}

impl Trace {
    pub fn new() -> Self {
        Trace::default()
    }

    /// The tags of the handlers that ran, in order.
    pub fn order(&self) -> Vec<&'static str> {
        self.calls
            .lock()
            .expect("trace lock")
            .iter()
            .map(|(tag, _)| *tag)
            .collect()
    }

    /// The data the handler `tag` saw on its first call.
    pub fn seen_by(&self, tag: &str) -> Value {
        self.calls
            .lock()
            .expect("trace lock")
            .iter()
            .find(|(t, _)| *t == tag)
            .map(|(_, data)| data.clone())
            .unwrap_or_else(|| panic!("handler `{tag}` never ran"))
    }

    fn record(&self, tag: &'static str, data: &Value) {
        self.calls
            .lock()
            .expect("trace lock")
            .push((tag, data.clone()));
    }

    /// A handler that records its call, then answers `answer`.
    pub fn answer(&self, tag: &'static str, answer: HookResult) -> impl for<'a> HookFn<'a> {
        let trace = self.clone();
        move |_event: &str, data: &Value| {
            trace.record(tag, data);
            let answer = answer.clone();
            async move { answer }
        }
    }

    /// Registers one answering handler per `(tag, answer)` on `event`, at priorities 0, 1, 2,
    /// ... in list order; each hook is named after its tag.
    pub fn chain<const N: usize>(
        &self,
        registry: &HookRegistry,
        event: &str,
        answers: [(&'static str, HookResult); N],
    ) {
        for (priority, (tag, answer)) in (0..).zip(answers) {
            registry
                .register(event, self.answer(tag, answer), priority, tag)
                .expect("test events are valid");
        }
    }

    /// A handler that records its call and continues.
    pub fn observe(&self, tag: &'static str) -> impl for<'a> HookFn<'a> {
        self.answer(tag, HookResult::cont())
    }
}

/// A runtime for tests that need one outside `#[tokio::test]`.
pub fn runtime() -> tokio::runtime::Runtime {
    tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .expect("test runtime")
}
