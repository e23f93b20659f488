//! The answers of an LLM hook kept by rendered prompt (`cache: true`).

use std::collections::HashMap;
use std::sync::Mutex;
use std::time::{Duration, Instant};

use hooks_core::HookResult;

use hooks_core::sync::lock;

/// Answers of an LLM hook by rendered prompt: bounded, each for a time to live.
#[derive(Debug)]
pub struct AnswerCache {
    ttl: Duration,
    capacity: usize,
    answers: Mutex<HashMap<String, (Instant, HookResult)>>,
}

impl AnswerCache {
    /// A cache of at most `capacity` answers, each kept for `ttl`.
    pub fn new(capacity: usize, ttl: Duration) -> Self {
        AnswerCache {
            ttl,
            capacity: capacity.max(1),
            answers: Mutex::new(HashMap::new()),
        }
    }

    /// The answer cached for `key`, if fresh.
    pub fn get(&self, key: &str) -> Option<HookResult> {
        let answers = lock(&self.answers);
        answers
            .get(key)
            .filter(|(at, _)| at.elapsed() < self.ttl)
            .map(|(_, answer)| answer.clone())
    }

    /// Keeps `answer` for `key`, dropping the oldest answer when full.
    pub fn put(&self, key: String, answer: HookResult) {
        let mut answers = lock(&self.answers);
        answers.retain(|_, (at, _)| at.elapsed() < self.ttl);
        if answers.len() >= self.capacity
            && let Some(oldest) = answers
                .iter()
                .min_by_key(|(_, (at, _))| *at)
                .map(|(k, _)| k.clone())
        {
            answers.remove(&oldest);
        }
        answers.insert(key, (Instant::now(), answer));
    }
}
