//! Independent pieces of one render spread over the machine's cores, so that a large chart
//! (an umbrella of many subcharts, hundreds of templates) uses every core where Helm's
//! sequential loader uses one.
//!
//! [`map_in_order`] is the one way the project does this. It gives exactly what the sequential
//! loop `items.iter().map(f).collect::<Result<Vec<_>, _>>()` gives: the results in input order,
//! or the error of the first piece in input order that fails; and what the pieces log through
//! [`kubepkg_gostd::slog`] is replayed on the calling thread, in input order and only for the
//! pieces the sequential loop would have run (into the caller's capture, if any). Pieces must
//! not depend on each other's side effects.
//!
//! Work is spread only where it pays for the threads it starts: below `min_items` pieces, or on
//! a machine with one core, everything runs on the calling thread.

#![forbid(unsafe_code)]

use kubepkg_gostd::slog;
use std::sync::OnceLock;
use std::sync::atomic::{AtomicUsize, Ordering};

/// The cores this process may use (its CPU affinity and cgroup quota), asked once.
pub fn cores() -> usize {
    static CORES: OnceLock<usize> = OnceLock::new();
    *CORES.get_or_init(|| std::thread::available_parallelism().map_or(1, |n| n.get()))
}

/// `f` applied to each of `items`, on up to [`cores`] threads when there are at least
/// `min_items` of them: all results in the order of `items`, or the index and error of the
/// first item (in that order) whose piece failed. Pieces after a failed one are not started
/// once it is known. A panic in `f` is a panic of the caller.
pub fn map_in_order<T, R, E>(
    items: &[T],
    min_items: usize,
    f: impl Fn(&T) -> Result<R, E> + Sync,
) -> Result<Vec<R>, (usize, E)>
where
    T: Sync,
    R: Send,
    E: Send,
{
    // Too few items asks nothing of the system (the cores are read from the cgroup's files).
    let threads = if items.len() < min_items.max(2) {
        1
    } else {
        cores().min(items.len())
    };
    if threads <= 1 {
        return items
            .iter()
            .enumerate()
            .map(|(i, item)| f(item).map_err(|e| (i, e)))
            .collect();
    }
    let next = AtomicUsize::new(0);
    let first_failed = AtomicUsize::new(usize::MAX);
    // Each thread takes the next piece not yet taken, so a slow piece holds back no other.
    let work = || {
        let mut done = Vec::new();
        loop {
            let i = next.fetch_add(1, Ordering::Relaxed);
            let Some(item) = items
                .get(i)
                .filter(|_| i < first_failed.load(Ordering::Relaxed))
            else {
                return done;
            };
            let (r, records) = slog::capture(|| f(item));
            if r.is_err() {
                first_failed.fetch_min(i, Ordering::Relaxed);
            }
            done.push((i, r, records));
        }
    };
    let mut done = std::thread::scope(|s| {
        let helpers: Vec<_> = (1..threads).map(|_| s.spawn(work)).collect();
        let mut done = work();
        for h in helpers {
            match h.join() {
                Ok(more) => done.extend(more),
                Err(panic) => std::panic::resume_unwind(panic),
            }
        }
        done
    });
    done.sort_unstable_by_key(|(i, _, _)| *i);
    // Every piece before the first failed one ran (a thread skips only pieces after a failure).
    let mut results = Vec::with_capacity(done.len());
    for (i, r, records) in done {
        records.into_iter().for_each(slog::log);
        results.push(r.map_err(|e| (i, e))?);
    }
    Ok(results)
}

#[cfg(test)]
mod tests {
    use super::*;

    type Never = std::convert::Infallible;

    #[test]
    fn results_come_in_input_order() {
        let items: Vec<u64> = (0..500).collect();
        // Uneven pieces, so the threads finish them out of order.
        let got = map_in_order(&items, 2, |&i| {
            let mut x = i;
            for _ in 0..(i % 7) * 1000 {
                x = x.wrapping_mul(6364136223846793005).wrapping_add(1);
            }
            Ok::<_, Never>((i, x))
        })
        .unwrap();
        let want: Vec<u64> = (0..500).collect();
        assert_eq!(got.iter().map(|(i, _)| *i).collect::<Vec<_>>(), want);
    }

    #[test]
    fn the_first_failure_in_input_order_is_the_answer() {
        let items: Vec<usize> = (0..300).collect();
        for _ in 0..20 {
            // Later pieces fail fast, the first failing one slowly: it is still the answer.
            let got = map_in_order(&items, 2, |&i| match i {
                40 => {
                    std::thread::sleep(std::time::Duration::from_millis(5));
                    Err(format!("piece {i}"))
                }
                i if i > 40 && i % 3 == 0 => Err(format!("piece {i}")),
                i => Ok(i),
            });
            assert_eq!(got, Err((40, "piece 40".to_string())));
        }
    }

    #[test]
    fn log_records_are_replayed_in_input_order_up_to_the_first_failure() {
        let items: Vec<usize> = (0..64).collect();
        let (got, records) = slog::capture(|| {
            map_in_order(&items, 2, |&i| {
                slog::log(slog::Record::info(format!("piece {i}")));
                std::thread::yield_now();
                slog::log(slog::Record::info(format!("piece {i} again")));
                if i == 50 { Err(i) } else { Ok(i) }
            })
        });
        assert_eq!(got, Err((50, 50)));
        // As the sequential loop: the records of pieces 0..=50, none of the later ones.
        let want: Vec<String> = (0..=50)
            .flat_map(|i| [format!("piece {i}"), format!("piece {i} again")])
            .collect();
        let got: Vec<String> = records.iter().map(|r| r.msg.clone()).collect();
        assert_eq!(got, want);
    }

    #[test]
    fn pieces_run_on_more_than_one_thread_when_the_machine_has_cores() {
        let items: Vec<usize> = (0..64).collect();
        let threads = map_in_order(&items, 2, |_| {
            std::thread::sleep(std::time::Duration::from_millis(2));
            Ok::<_, Never>(std::thread::current().id())
        })
        .unwrap();
        let distinct: std::collections::HashSet<_> = threads.into_iter().collect();
        assert_eq!(
            distinct.len() > 1,
            cores() > 1,
            "threads used: {distinct:?}"
        );
    }

    #[test]
    fn below_the_threshold_everything_runs_on_the_calling_thread() {
        let items: Vec<usize> = (0..8).collect();
        let me = std::thread::current().id();
        let threads =
            map_in_order(&items, 9, |_| Ok::<_, Never>(std::thread::current().id())).unwrap();
        assert!(threads.iter().all(|t| *t == me));
    }

    #[test]
    #[should_panic(expected = "piece 17 fails")]
    fn a_panic_in_a_piece_is_the_callers() {
        let items: Vec<usize> = (0..64).collect();
        let _ = map_in_order(&items, 2, |&i| {
            assert_ne!(i, 17, "piece 17 fails");
            Ok::<_, Never>(())
        });
    }
}
