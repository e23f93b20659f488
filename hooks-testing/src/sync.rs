//! Locks of the kit's shared records, poison-tolerant.

use std::sync::{Mutex, MutexGuard, PoisonError};

/// `mutex` locked, whether or not a thread panicked while holding it: the records it guards
/// are only pushed to and read, so they stay whole, and the panic fails its own test rather
/// than every assertion after it.
pub(crate) fn lock<T>(mutex: &Mutex<T>) -> MutexGuard<'_, T> {
    mutex.lock().unwrap_or_else(PoisonError::into_inner)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_lock_poisoned_by_a_panic_still_gives_what_it_guards() {
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
