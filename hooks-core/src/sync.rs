//! Poison-tolerant locks: every lock of the workspace's crates is taken through here, so that
//! the reason below is written once.
//!
//! A lock is poisoned when a thread panicked while holding it. Hooks run application code, and
//! a panicking handler is isolated and reported, not fatal; if a lock it left poisoned failed
//! every later caller, one bad handler would disable the guard for the rest of the process.
//! What these locks guard is written whole under each lock, so a poisoned one is still
//! consistent, and taking it anyway is sound.

use std::sync::{Mutex, MutexGuard, PoisonError};
use std::sync::{RwLock, RwLockReadGuard, RwLockWriteGuard};

/// `mutex` locked, whether or not a thread panicked while holding it.
pub fn lock<T: ?Sized>(mutex: &Mutex<T>) -> MutexGuard<'_, T> {
    mutex.lock().unwrap_or_else(PoisonError::into_inner)
}

/// `lock` read, whether or not a thread panicked while holding it.
pub fn read<T: ?Sized>(lock: &RwLock<T>) -> RwLockReadGuard<'_, T> {
    lock.read().unwrap_or_else(PoisonError::into_inner)
}

/// `lock` written, whether or not a thread panicked while holding it.
pub fn write<T: ?Sized>(lock: &RwLock<T>) -> RwLockWriteGuard<'_, T> {
    lock.write().unwrap_or_else(PoisonError::into_inner)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Runs `poison` on another thread, which panics inside it.
    fn panicking(poison: impl FnOnce() + Send) {
        let outcome = std::thread::scope(|scope| scope.spawn(poison).join());
        assert!(outcome.is_err());
    }

    #[test]
    fn a_poisoned_mutex_still_gives_what_it_guards() {
        let counter = Mutex::new(1);
        panicking(|| {
            let mut held = lock(&counter);
            *held += 1;
            panic!("a panic while holding the lock");
        });
        assert!(counter.is_poisoned());
        assert_eq!(*lock(&counter), 2);
    }

    #[test]
    fn a_poisoned_rwlock_can_still_be_read_and_written() {
        let value = RwLock::new(1);
        panicking(|| {
            let mut held = write(&value);
            *held += 1;
            panic!("a panic while holding the lock");
        });
        assert!(value.is_poisoned());
        assert_eq!(*read(&value), 2);
        *write(&value) += 1;
        assert_eq!(*read(&value), 3);
    }
}
