//! Poison-tolerant locks: every lock of this crate is taken through here.
//!
//! A lock is poisoned when a thread panicked while holding it. Hooks run application code, and
//! a panicking handler is isolated and reported, not fatal; if a lock it left poisoned failed
//! every later caller, one bad handler would disable the guard for the rest of the process.
//! What these locks guard is written whole under each lock, so a poisoned one is still
//! consistent, and taking it anyway is sound.

use std::sync::{Mutex, MutexGuard, PoisonError};

/// `mutex` locked, whether or not a thread panicked while holding it.
pub(crate) fn lock<T: ?Sized>(mutex: &Mutex<T>) -> MutexGuard<'_, T> {
    mutex.lock().unwrap_or_else(PoisonError::into_inner)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_poisoned_mutex_still_gives_what_it_guards() {
        let counter = Mutex::new(1);
        let panicked = std::thread::scope(|scope| {
            scope
                .spawn(|| {
                    let mut held = lock(&counter);
                    *held += 1;
                    panic!("a panic while holding the lock");
                })
                .join()
        });
        assert!(panicked.is_err());
        assert!(counter.is_poisoned());
        assert_eq!(*lock(&counter), 2);
    }
}
