//! One `emit`: the awaitable that runs an event's handlers on the caller's event loop and
//! folds their answers into one `HookResult`.
//!
//! The chain is its own iterator, as a coroutine is: the awaiting task sends into it and it
//! drives each handler's coroutine in turn. A handler that never suspends costs no trip
//! through the event loop; one that suspends (awaits I/O, a sleep) hands what it yields to the
//! task unchanged and is resumed with what the task sends back, so cancellation and
//! exceptions reach it as they would in a plain `await`.
//!
//! The fold follows the kernel's rules (hooks-core's merge): deny stops the chain and decides;
//! modify replaces the data later handlers see; every injection and user message is kept, in
//! order; the first ask_user decides unless a later handler denies; the merged action is the
//! strongest seen (deny > ask_user > inject_context > modify > continue).

use pyo3::exceptions::{PyException, PyRuntimeError, PyStopIteration, PyTypeError};
use pyo3::intern;
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyIterator, PySendResult, PyString};

use crate::handlers::{Entry, Handlers, canonical};
use crate::result::{Action, HookResult, Level, Role};

/// Whether the chain goes on after an answer.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Flow {
    Continue,
    Stop,
}

/// What the awaiting task hands the chain when it resumes it.
enum Resume<'py> {
    Send(Bound<'py, PyAny>),
    Throw(PyErr),
}

/// The data handlers are given: the defaults, `data` over them, and a `timestamp`.
pub fn prepared_data<'py>(
    py: Python<'py>,
    defaults: Option<&Py<PyDict>>,
    data: &Bound<'py, PyAny>,
) -> PyResult<Bound<'py, PyDict>> {
    let data = data.cast::<PyDict>().map_err(|_| {
        PyTypeError::new_err(format!(
            "event data must be a dict, not {}",
            data.get_type()
                .name()
                .map(|n| n.to_string())
                .unwrap_or_default()
        ))
    })?;
    let prepared = match defaults {
        Some(defaults) => {
            let merged = defaults.bind(py).copy()?;
            merged.update(data.as_mapping())?;
            merged
        }
        None => data.copy()?,
    };
    let timestamp = intern!(py, "timestamp");
    if !prepared.contains(timestamp)? {
        prepared.set_item(timestamp, hooks_core::timestamp::now())?;
    }
    Ok(prepared)
}

/// Logs through Python's `logging` (logger `hooks`), as the reference does; a logging
/// failure is not the chain's concern.
pub fn warn(py: Python<'_>, message: &str) {
    let logged = py
        .import(intern!(py, "logging"))
        .and_then(|logging| logging.call_method1(intern!(py, "getLogger"), ("hooks",)))
        .and_then(|logger| logger.call_method1(intern!(py, "warning"), (message,)));
    drop(logged);
}

/// What the answers so far left to merge (nothing until an answer has something to record).
#[derive(Default)]
struct Record {
    /// Each injection's text, role, ephemeral and append-to-last-tool-result.
    injections: Vec<(String, Role, bool, bool)>,
    messages: Vec<(String, Level)>,
    /// The deny that ended the chain, or the first ask_user.
    decision: Option<HookResult>,
    /// Each modification's reason.
    modifications: Vec<Option<String>>,
    suppress_output: bool,
}

/// The handler being awaited.
struct Running {
    iterator: Py<PyIterator>,
    index: usize,
}

/// An `emit` in progress: await it for the merged `HookResult`.
#[pyclass(module = "hooks")]
pub struct Chain {
    event: Py<PyString>,
    handlers: Option<Handlers>,
    next: usize,
    data: Py<PyAny>,
    running: Option<Running>,
    record: Option<Box<Record>>,
    modified_chain: Action,
    done: bool,
}

impl Chain {
    /// Starts an emit of `event` to the handlers `handlers_of` gives for its canonical name,
    /// with the registry's default fields (nothing runs until it is awaited).
    pub fn start(
        py: Python<'_>,
        handlers_of: impl FnOnce(&str) -> Option<Handlers>,
        defaults: Option<&Py<PyDict>>,
        event: &Bound<'_, PyString>,
        data: &Bound<'_, PyAny>,
        modified_chain: Action,
    ) -> PyResult<Chain> {
        let name = event.to_str()?;
        let canonical_name = canonical(name)?;
        let handlers = handlers_of(canonical_name);
        let event = if canonical_name == name {
            event.clone().unbind()
        } else {
            PyString::new(py, canonical_name).unbind()
        };
        let data = match &handlers {
            // With no handler, the data comes back as it was given.
            None => {
                if !data.is_instance_of::<PyDict>() {
                    return Err(PyTypeError::new_err(format!(
                        "event data must be a dict, not {}",
                        data.get_type().name()?
                    )));
                }
                data.clone().unbind()
            }
            Some(_) => prepared_data(py, defaults, data)?.into_any().unbind(),
        };
        Ok(Chain {
            event,
            handlers,
            next: 0,
            data,
            running: None,
            record: None,
            modified_chain,
            done: false,
        })
    }

    /// Runs the chain until a handler suspends (its yield is returned) or the chain ends
    /// (`StopIteration` carrying the merged result).
    fn step(
        &mut self,
        py: Python<'_>,
        mut input: Option<Resume<'_>>,
    ) -> PyResult<Option<Py<PyAny>>> {
        if self.done {
            return Err(PyRuntimeError::new_err(
                "cannot reuse an already awaited emit",
            ));
        }
        let outcome = self.run(py, &mut input);
        match outcome {
            Ok(Some(yielded)) => Ok(Some(yielded)),
            Ok(None) => {
                self.done = true;
                let result = Py::new(py, self.finish(py))?;
                Err(PyStopIteration::new_err((result,)))
            }
            Err(error) => {
                self.done = true;
                Err(error)
            }
        }
    }

    fn run(
        &mut self,
        py: Python<'_>,
        input: &mut Option<Resume<'_>>,
    ) -> PyResult<Option<Py<PyAny>>> {
        let Some(handlers) = self.handlers.clone() else {
            return match input.take() {
                Some(Resume::Throw(error)) => Err(error),
                _ => Ok(None),
            };
        };
        loop {
            if let Some(running) = self.running.take() {
                let iterator = running.iterator.bind(py);
                let sent = match input.take() {
                    Some(Resume::Throw(error)) => throw_into(iterator, error),
                    Some(Resume::Send(value)) => iterator.send(&value),
                    None => iterator.send(&py.None().into_bound(py)),
                };
                let entry = &handlers[running.index];
                let answer = match sent {
                    Ok(PySendResult::Next(yielded)) => {
                        self.running = Some(running);
                        return Ok(Some(yielded.unbind()));
                    }
                    Ok(PySendResult::Return(value)) => Ok(value),
                    Err(error) => Err(error),
                };
                if self.absorb(py, entry, answer)? == Flow::Stop {
                    return Ok(None);
                }
                continue;
            }
            if let Some(Resume::Throw(error)) = input.take() {
                return Err(error);
            }
            let Some(entry) = handlers.get(self.next) else {
                return Ok(None);
            };
            let index = self.next;
            self.next += 1;
            let answer = entry
                .handler
                .bind(py)
                .call1((self.event.bind(py), self.data.bind(py)));
            let answer = match answer {
                Ok(value) if value.is_instance_of::<HookResult>() => Ok(value),
                Ok(value) if value.hasattr(intern!(py, "__await__"))? => {
                    let awaited = value
                        .call_method0(intern!(py, "__await__"))
                        .and_then(|it| PyIterator::from_object(&it));
                    match awaited {
                        Ok(iterator) => {
                            self.running = Some(Running {
                                iterator: iterator.unbind(),
                                index,
                            });
                            continue;
                        }
                        Err(error) => Err(error),
                    }
                }
                other => other,
            };
            if self.absorb(py, entry, answer)? == Flow::Stop {
                return Ok(None);
            }
        }
    }

    /// Folds one handler's outcome in: its answer, or the exception it raised.
    fn absorb(
        &mut self,
        py: Python<'_>,
        entry: &Entry,
        answer: PyResult<Bound<'_, PyAny>>,
    ) -> PyResult<Flow> {
        let value = match answer {
            Ok(value) => value,
            // Cancellation, KeyboardInterrupt, SystemExit: not the handler's failure to skip.
            Err(error) if !error.is_instance_of::<PyException>(py) => return Err(error),
            Err(error) => return Ok(self.fail(py, entry, &format!("raised {error}"))),
        };
        let Ok(answer) = value.cast::<HookResult>() else {
            let kind = value.get_type().name()?;
            return Ok(self.fail(py, entry, &format!("returned {kind}, not a HookResult")));
        };
        let answer = answer.borrow();
        if answer.action == Action::Continue
            && answer.user_message.is_none()
            && answer.context_injection.is_none()
            && !answer.suppress_output
        {
            return Ok(Flow::Continue);
        }
        let record = self.record.get_or_insert_with(Box::default);
        record.suppress_output |= answer.suppress_output;
        if let Some(text) = &answer.user_message {
            record
                .messages
                .push((text.clone(), answer.user_message_level));
        }
        // An injection is kept whatever the action: text written for the agent is never
        // dropped because its hook also denied or modified.
        if let Some(text) = &answer.context_injection {
            record.injections.push((
                text.clone(),
                answer.context_injection_role,
                answer.ephemeral,
                answer.append_to_last_tool_result,
            ));
        } else if answer.action == Action::InjectContext {
            warn(
                py,
                &format!(
                    "hook {}: inject_context without context_injection",
                    entry.label()
                ),
            );
        }
        match answer.action {
            Action::Deny => {
                if let Some(data) = &answer.data {
                    self.data = data.clone_ref(py);
                }
                record.decision = Some(answer.copy(py));
                return Ok(Flow::Stop);
            }
            Action::AskUser => {
                if record.decision.is_none() {
                    record.decision = Some(answer.copy(py));
                }
            }
            Action::Modify => match &answer.data {
                Some(data) => {
                    self.data = data.clone_ref(py);
                    record.modifications.push(answer.reason.clone());
                }
                None => warn(
                    py,
                    &format!("hook {}: modify without data, ignored", entry.label()),
                ),
            },
            Action::InjectContext | Action::Continue => {}
        }
        Ok(Flow::Continue)
    }

    /// A handler that failed: logged and skipped, or a deny if it was registered fail-closed.
    fn fail(&mut self, py: Python<'_>, entry: &Entry, what: &str) -> Flow {
        let event = self.event.bind(py).to_string();
        warn(py, &format!("hook {} on {event} {what}", entry.label()));
        if !entry.fail_closed {
            return Flow::Continue;
        }
        let mut deny = HookResult::proceed(None);
        deny.action = Action::Deny;
        deny.reason = Some(format!(
            "hook {} failed (fail-closed): it {what}",
            entry.label()
        ));
        self.record.get_or_insert_with(Box::default).decision = Some(deny);
        Flow::Stop
    }

    /// The merged result, carrying the final data.
    fn finish(&mut self, py: Python<'_>) -> HookResult {
        let data = Some(self.data.clone_ref(py));
        let Some(record) = self.record.take() else {
            return HookResult::proceed(data);
        };
        let mut result = record.decision.unwrap_or_else(|| HookResult::proceed(None));
        let done = [
            (!record.injections.is_empty()).then_some(Action::InjectContext),
            (!record.modifications.is_empty()).then_some(Action::Modify),
        ];
        if let Some(action) = done.into_iter().flatten().max()
            && action > result.action
        {
            result.action = action;
            if let (Action::Modify, Some(reason)) = (action, record.modifications.last()) {
                result.reason.clone_from(reason);
            }
        }
        if result.action == Action::Modify {
            result.action = self.modified_chain;
        }
        if let Some((_, role, ephemeral, append)) = record.injections.first() {
            result.context_injection_role = *role;
            result.ephemeral = *ephemeral;
            result.append_to_last_tool_result = *append;
        }
        result.data = data;
        result.context_injection = join(record.injections.iter().map(|i| i.0.as_str()), "\n\n");
        result.user_message = join(record.messages.iter().map(|m| m.0.as_str()), "\n");
        result.user_message_level = record
            .messages
            .iter()
            .map(|m| m.1)
            .max()
            .unwrap_or(Level::Info);
        result.suppress_output = record.suppress_output;
        result
    }
}

/// Throws `error` into a suspended handler; its `StopIteration` is its return.
fn throw_into<'py>(iterator: &Bound<'py, PyIterator>, error: PyErr) -> PyResult<PySendResult<'py>> {
    let py = iterator.py();
    match iterator.call_method1(intern!(py, "throw"), (error.into_value(py),)) {
        Ok(yielded) => Ok(PySendResult::Next(yielded)),
        Err(stop) if stop.is_instance_of::<PyStopIteration>(py) => {
            let value = stop.value(py).getattr(intern!(py, "value"))?;
            Ok(PySendResult::Return(value))
        }
        Err(error) => Err(error),
    }
}

fn join<'a>(mut parts: impl Iterator<Item = &'a str>, separator: &str) -> Option<String> {
    let first = parts.next()?;
    let mut joined = first.to_owned();
    for part in parts {
        joined.push_str(separator);
        joined.push_str(part);
    }
    Some(joined)
}

/// The exception a `throw(type, value, traceback)` call names.
fn thrown(
    py: Python<'_>,
    kind: &Bound<'_, PyAny>,
    value: Option<&Bound<'_, PyAny>>,
) -> PyResult<PyErr> {
    if kind.is_instance_of::<pyo3::exceptions::PyBaseException>() {
        return Ok(PyErr::from_value(kind.clone()));
    }
    let instance = match value {
        Some(value) if value.is_instance_of::<pyo3::exceptions::PyBaseException>() => value.clone(),
        Some(value) if !value.is_none() => kind.call1((value,))?,
        _ => kind.call0()?,
    };
    let _ = py;
    Ok(PyErr::from_value(instance))
}

#[pymethods]
impl Chain {
    fn __await__(slf: PyRef<'_, Self>) -> PyRef<'_, Self> {
        slf
    }

    fn __iter__(slf: PyRef<'_, Self>) -> PyRef<'_, Self> {
        slf
    }

    fn __next__(&mut self, py: Python<'_>) -> PyResult<Option<Py<PyAny>>> {
        self.step(py, None)
    }

    /// Resumes the chain with what the task sends (the coroutine protocol).
    fn send(&mut self, py: Python<'_>, value: Bound<'_, PyAny>) -> PyResult<Option<Py<PyAny>>> {
        self.step(py, Some(Resume::Send(value)))
    }

    /// Throws into the handler being awaited (the coroutine protocol: cancellation).
    #[pyo3(signature = (kind, value = None, _traceback = None))]
    fn throw(
        &mut self,
        py: Python<'_>,
        kind: Bound<'_, PyAny>,
        value: Option<Bound<'_, PyAny>>,
        _traceback: Option<Bound<'_, PyAny>>,
    ) -> PyResult<Option<Py<PyAny>>> {
        let error = thrown(py, &kind, value.as_ref())?;
        self.step(py, Some(Resume::Throw(error)))
    }

    /// Closes the handler being awaited and ends the chain.
    fn close(&mut self, py: Python<'_>) -> PyResult<()> {
        self.done = true;
        if let Some(running) = self.running.take() {
            running
                .iterator
                .bind(py)
                .call_method0(intern!(py, "close"))?;
        }
        Ok(())
    }

    /// The event this emit is for (its canonical name).
    #[getter]
    fn event(&self, py: Python<'_>) -> Py<PyString> {
        self.event.clone_ref(py)
    }
}
