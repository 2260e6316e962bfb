//! Options fio added after 3.33 (up to 3.42), each checked against what fio 3.42's HOWTO
//! says it does: deterministic runs (the null engine on a clock that advances 1 us per
//! reading) where the numbers allow it, real files where the option is about the kernel.

use crate::common::*;
use crate::formats::deterministic;

/// ramp_size: "fio will wait until the job does given amount of IO before logging any
/// performance numbers. When group_reporting is enabled, the logging starts when all jobs in
/// the group together perform given amount of IO ... will increase the total runtime if ...
/// runtime is specified". The ramp's I/O counts toward `size`, as ramp_time's does.
#[test]
fn ramp_size_measures_after_that_much_io() {
    let r = deterministic("[r]\nioengine=null\nsize=16m\nbs=4k\nramp_size=4m\n");
    assert_eq!(
        r.jobs[0].dirs[0].io_bytes,
        12 << 20,
        "16 MiB read, the first 4 MiB not measured"
    );
    // Two jobs of a group ramp up together: 4 MiB between them, not 4 MiB each.
    let r = deterministic(
        "[r]\nioengine=null\nsize=16m\nbs=4k\nramp_size=4m\nnumjobs=2\ngroup_reporting\n",
    );
    let measured = r.jobs[0].dirs[0].io_bytes;
    assert!(
        ((28 << 20) - 4096..=28 << 20).contains(&measured),
        "32 MiB read by the group, its first 4 MiB together not measured (one I/O of the other \
         job may complete as the ramp ends): {measured}"
    );
    // runtime counts from the end of the ramp.
    let r = deterministic(
        "[r]\nioengine=null\nsize=1g\nbs=4k\nramp_size=8m\nruntime=200ms\ntime_based\n",
    );
    let ms = r.jobs[0].job_runtime_ms;
    assert!(
        (200..=201).contains(&ms),
        "200 ms measured after the ramp: {ms} ms"
    );
    // fio 3.42 refuses ramp_time with ramp_size, and groups whose jobs ramp differently.
    let d = TempDir::new("ramp-size");
    for (args, why) in [
        (
            &[
                "--name=a",
                "--ioengine=null",
                "--size=1m",
                "--ramp_size=64k",
                "--ramp_time=1",
            ][..],
            "cannot both be set",
        ),
        (
            &[
                "--ioengine=null",
                "--size=1m",
                "--name=a",
                "--ramp_size=64k",
                "--name=b",
            ][..],
            "same within a reporting group",
        ),
    ] {
        let o = run_in(&d.0, args);
        assert!(
            !o.status.success() && stderr(&o).contains(why),
            "{args:?}: expected a refusal saying '{why}': {}",
            stderr(&o)
        );
    }
}
