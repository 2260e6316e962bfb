//! Cloud volume, instance and cost models.
//!
//! The numbers (limits, prices, latency models) live in `data/models.json`, versioned and
//! with a source and date on every entry; this module holds the formulas: how IOPS and
//! throughput follow from size and provisioning, how EBS counts large I/Os (256 KiB units on SSD,
//! 1 MiB on HDD), how an instance caps a volume, what a volume costs and how to right-size it.
//!
//! Units in this API: IOPS per second as `f64`; bandwidth in bytes per second (EBS "MiB/s" are
//! 1,048,576 bytes, instance and Azure "MB/s" 1,000,000 bytes).

mod calibrated;
mod ceiling;
mod cost;
pub(crate) mod data;
mod family;
mod instance;
mod latency;
mod listing;
mod local;
mod pricelist;
mod prices;
mod provision;
mod spec;
mod volume;

pub use calibrated::{
    calibrated_in_use, single_run_factor, use_calibrated, CalibratedModel, Load, ModelFile,
    MODEL_FILE_FORMAT,
};
pub(crate) use ceiling::{ceiling_for, instance_ceiling, Workload};
pub use ceiling::{expected_ceiling, Ceiling};
pub use cost::{cost_text, right_size, Cost, RightSize, DEFAULT_BS, RIGHT_SIZE_HEADROOM};
pub use data::{use_extra_models, InstanceHourPrices, Price, PriceTier, HOURS_PER_MONTH};
pub use instance::{
    family_of, instance, instance_family, largest_instance, widest_instance, Instance,
};
pub use latency::{
    latency_model, latency_models, shipped_latency_model, Basis, LatencyModel, Verdict,
};
pub use listing::{list_models, list_models_json, list_sources};
pub use local::{
    instance_storage, instance_storage_note, local_latency_model, InstanceCost,
    InstancePriceSource, LocalNvme, RegionalPrice,
};
pub use pricelist::{
    aws as parse_aws_prices, azure as parse_azure_prices, compare_with_shipped,
    gcp as parse_gcp_prices, oci as parse_oci_prices, UPDATE_PROVIDERS,
};
pub use prices::{
    prices, use_prices, Origin, PriceBook, PriceFile, PriceOptions, Resolved, PRICE_FILE_FORMAT,
};
pub(crate) use provision::units_per_io;
pub use provision::{size_for, smallest, Need, Sized};
pub(crate) use spec::known_types;
pub use spec::{parse_volume, volume_types};
pub use volume::{Burst, Volume};

/// The version string of the bundled model data, e.g. `2026-11-29.1`.
pub fn data_version() -> &'static str {
    &data::data().version
}

#[cfg(test)]
mod tests {
    use super::*;

    const MIB: f64 = 1_048_576.0;
    const KIB: u64 = 1024;

    fn close(a: f64, b: f64) -> bool {
        (a - b).abs() <= 1e-6 * b.abs().max(1.0)
    }

    #[test]
    fn each_type_says_what_raises_its_throughput() {
        // A 1 MiB ceiling binds on throughput; its advice follows what sets the type's limit.
        for (spec, want) in [
            (
                "gp3:iops=3000",
                "provision more throughput (gp3 throughput is provisioned, up to the type's most)",
            ),
            // At the type's most: a bigger one of the same type does not help.
            (
                "gp2:size=2000G",
                "gp2 is at its most throughput here: a type with a higher limit, or a stripe of volumes",
            ),
            (
                "io1:iops=64000",
                "io1 is at its most throughput here: a type with a higher limit, or a stripe of volumes",
            ),
            (
                "st1:size=16T",
                "st1 is at its most throughput here: a type with a higher limit, or a stripe of volumes",
            ),
            (
                "io1:iops=2000,size=100G",
                "provision more IOPS (io1 throughput grows with its IOPS)",
            ),
            (
                "gp2:size=100G",
                "a larger volume (gp2 throughput grows with its size)",
            ),
            (
                "st1:size=2T",
                "a larger volume (st1 throughput grows with its size)",
            ),
            (
                "oci-balanced:size=500G",
                "a larger volume or more VPUs per GB (oci-balanced throughput grows with both)",
            ),
            (
                "azure-premium-ssd:size=512G",
                "a larger disk (azure-premium-ssd throughput is set by the size's tier)",
            ),
        ] {
            let c = parse_volume(spec).unwrap().ceiling(1024 * KIB, 1.0);
            assert_eq!(
                c.raise_throughput.as_deref(),
                Some(want),
                "{spec} at 1 MiB reads (limited by {})",
                c.limited_by
            );
        }
    }

    #[test]
    fn io1_seed_figures() {
        // 48,000 IOPS -> 750 MiB/s (16 KiB per provisioned IOPS above 32,000).
        let v = parse_volume("io1:iops=48000").unwrap();
        assert_eq!(v.name(), "io1 48,000 IOPS, 960 GiB");
        assert!(
            v.notes()[0].contains("smallest io1 size"),
            "{:?}",
            v.notes()
        );
        assert!(close(v.throughput_bytes_per_s(), 750.0 * MIB));
        let c = v.ceiling(16 * KIB, 1.0);
        assert!(close(c.iops, 48_000.0), "{c:?}");
        assert!(
            c.limited_by.contains("volume IOPS (48,000)"),
            "{}",
            c.limited_by
        );
        assert!(
            c.limited_by
                .contains("volume throughput (750 MiB/s = 48,000 x 16 KiB)"),
            "{}",
            c.limited_by
        );
        // Phase 4 of seed 000: 256 KiB reads are throughput-bound at 3,000 IOPS, 750 MiB/s.
        let c = v.ceiling(256 * KIB, 1.0);
        assert!(close(c.iops, 3_000.0), "{c:?}");
        assert!(close(c.bytes_per_s, 750.0 * MIB));
        assert!(
            c.limited_by.starts_with("volume throughput"),
            "{}",
            c.limited_by
        );
        // 2,000 IOPS -> 500 MiB/s at 256 KiB.
        let v = parse_volume("io1:iops=2000,size=1000G").unwrap();
        assert!(close(v.throughput_bytes_per_s(), 500.0 * MIB));
        let c = v.ceiling(256 * KIB, 0.0);
        assert!(close(c.iops, 2_000.0) && close(c.bytes_per_s, 500.0 * MIB));
        // 10,000 IOPS: 256 KiB x 10,000 would be 2,500 MiB/s; capped at 500.
        let v = parse_volume("io1:iops=10000").unwrap();
        assert!(close(v.throughput_bytes_per_s(), 500.0 * MIB));
        // 64,000 IOPS -> 1,000 MiB/s.
        let v = parse_volume("io1:iops=64000").unwrap();
        assert!(close(v.throughput_bytes_per_s(), 1000.0 * MIB));
    }

    #[test]
    fn ebs_io_size_accounting() {
        // A 1 MiB I/O counts as four 256 KiB I/Os on SSD types.
        let v = parse_volume("io1:iops=48000").unwrap();
        let c = v.ceiling(1024 * KIB, 1.0);
        // 48,000 / 4 = 12,000 by IOPS; 750 MiB/s / 1 MiB = 750 by throughput.
        assert!(close(c.iops, 750.0), "{c:?}");
        let v = parse_volume("custom:iops=1000").unwrap();
        assert_eq!(v.io_unit(), None);
        assert!(close(v.ceiling(1024 * KIB, 1.0).iops, 1000.0));
        assert_eq!(parse_volume("gp3").unwrap().io_unit(), Some(256 * 1024));
        assert_eq!(
            parse_volume("st1:size=2T").unwrap().io_unit(),
            Some(1024 * 1024)
        );
        let g = parse_volume("gp3:iops=16000,throughput=1000").unwrap();
        let c = g.ceiling(512 * KIB, 1.0);
        // 16,000 / 2 = 8,000 by IOPS; 1,000 MiB/s / 512 KiB = 2,000 by throughput.
        assert!(close(c.iops, 2_000.0), "{c:?}");
        // Sequential 4 KiB on gp3: merged 64 per 256 KiB unit, so throughput binds.
        let c = parse_volume("gp3")
            .unwrap()
            .ceiling_with(4 * KIB, 1.0, true);
        assert!(close(c.iops, 125.0 * MIB / 4096.0), "{c:?}");
    }

    #[test]
    fn gp3_figures() {
        let v = parse_volume("gp3").unwrap();
        assert!(close(v.iops(), 3_000.0));
        assert!(close(v.throughput_bytes_per_s(), 125.0 * MIB));
        assert!(v.typical_latency_us() > 0.0);
        assert_eq!(v.latency_model().name(), "ebs-gp");
        let v = parse_volume("gp3:iops=6000,throughput=250").unwrap();
        assert_eq!(v.size_gib(), Some(12.0));
        assert!(close(v.throughput_bytes_per_s(), 250.0 * MIB));
        // 0.25 MiB/s per IOPS x 6,000 = 1,500, capped at 1,000.
        assert!(parse_volume("gp3:iops=6000,throughput=1000").is_ok());
        // 0.25 MiB/s per IOPS x 6,000 = 1,500 (the 2,000 MiB/s cap is further up).
        assert!(parse_volume("gp3:iops=6000,throughput=1500").is_ok());
        let e = parse_volume("gp3:iops=6000,throughput=1501")
            .unwrap_err()
            .to_string();
        assert!(e.contains("125..1,500 MiB/s"), "{e}");
        let e = parse_volume("gp3:iops=3000,throughput=1000")
            .unwrap_err()
            .to_string();
        assert!(e.contains("125..750 MiB/s"), "{e}");
        // 2025: 80,000 IOPS, 2,000 MiB/s, 64 TiB.
        let v = parse_volume("gp3:iops=80000,throughput=2000").unwrap();
        assert!(close(v.iops(), 80_000.0));
        assert!(close(v.throughput_bytes_per_s(), 2000.0 * MIB));
        assert_eq!(v.size_gib(), Some(160.0));
        assert!(parse_volume("gp3:size=64T").is_ok());
        let e = parse_volume("gp3:iops=80001").unwrap_err().to_string();
        assert!(e.contains("3,000..80,000"), "{e}");
        let e = parse_volume("gp3:iops=20000,limits=2023")
            .unwrap_err()
            .to_string();
        assert!(
            e.contains("3,000..16,000") && e.contains("drop limits=2023"),
            "{e}"
        );
        let v = parse_volume("gp3:iops=16000,limits=2023").unwrap();
        assert!(v.notes().iter().any(|n| n.contains("before AWS raised")));
        assert!(parse_volume("gp3:iops=16000,throughput=1001,limits=2023").is_err());
        // Acceptance (issue 9): $40 storage + 17,000 x $0.005 + 875 x $0.04 = $160.
        let c = parse_volume("gp3:iops=20000,throughput=1000,size=500G")
            .unwrap()
            .monthly_cost()
            .unwrap();
        assert!(close(c.total, 160.0), "{c:?}");
        let e = parse_volume("gp3:iops=6000,size=10G")
            .unwrap_err()
            .to_string();
        assert!(
            e.contains("500 IOPS per GiB") && e.contains("size >= 12 GiB"),
            "{e}"
        );
        // A 1 GiB gp3 still gets its included 3,000 IOPS.
        assert!(parse_volume("gp3:size=1G").is_ok());
    }

    #[test]
    fn gp2_figures() {
        let v = parse_volume("gp2:size=100G").unwrap();
        assert!(close(v.iops(), 300.0));
        assert!(close(v.throughput_bytes_per_s(), 128.0 * MIB));
        let b = v.burst().unwrap();
        assert!(close(b.iops, 3_000.0));
        // 5.4 M credits / (3,000 - 300) = 2,000 s (AWS's own example).
        assert!(close(b.seconds_from_full, 2_000.0), "{b:?}");
        assert!(b.description.contains("18,000 s"), "{}", b.description);
        let bc = v.burst_ceiling(16 * 1024, 1.0, false).unwrap();
        assert!(close(bc.iops, 3_000.0));
        assert!(close(parse_volume("gp2:size=10G").unwrap().iops(), 100.0));
        assert!(close(
            parse_volume("gp2:size=16T").unwrap().iops(),
            16_000.0
        ));
        let big = parse_volume("gp2:size=1000G").unwrap();
        assert!(close(big.iops(), 3_000.0));
        assert!(big.burst().is_none());
        assert!(close(big.throughput_bytes_per_s(), 250.0 * MIB));
        // 170-334 GiB: baseline IOPS x 256 KiB sustained (600 x 256 KiB = 150 MiB/s), 250 with
        // credits.
        let mid = parse_volume("gp2:size=200G").unwrap();
        assert!(close(mid.throughput_bytes_per_s(), 150.0 * MIB));
        assert!(close(mid.burst().unwrap().bytes_per_s, 250.0 * MIB));
        let mid = parse_volume("gp2:size=171G").unwrap();
        assert!(close(mid.throughput_bytes_per_s(), 128.25 * MIB));
        // Below 33.33 GiB credits are earned at the 100-IOPS minimum baseline, not 3/GiB/s.
        let small = parse_volume("gp2:size=10G").unwrap();
        let b = small.burst().unwrap();
        assert!(
            b.description.contains("refills in 54,000 s")
                && b.description.contains("100 credits/s"),
            "{}",
            b.description
        );
        assert!(parse_volume("gp2")
            .unwrap_err()
            .to_string()
            .contains("needs size="));
    }

    #[test]
    fn io2_and_block_express() {
        let v = parse_volume("io2-be:iops=16000").unwrap();
        // 0.256 MiB/s x 16,000 = 4,096, capped at 4,000.
        assert!(close(v.throughput_bytes_per_s(), 4000.0 * MIB));
        assert_eq!(v.size_gib(), Some(16.0));
        let v = parse_volume("io2-be:iops=256000,size=256G").unwrap();
        assert!(close(v.iops(), 256_000.0));
        assert!(parse_volume("io2-be:iops=256001").is_err());
        // Every io2 is Block Express since 2025: 1,000 IOPS per GiB, up to 256,000.
        let v = parse_volume("io2:iops=64000").unwrap();
        assert_eq!(v.size_gib(), Some(64.0));
        assert!(close(v.throughput_bytes_per_s(), 4000.0 * MIB));
        assert!(parse_volume("io2:iops=100000").is_ok());
        let v = parse_volume("io2:iops=256000").unwrap();
        assert!(close(v.iops(), 256_000.0));
        assert_eq!(v.size_gib(), Some(256.0));
        assert_eq!(v.type_name(), "io2");
        let e = parse_volume("io2:iops=256001").unwrap_err().to_string();
        assert!(e.contains("100..256,000"), "{e}");
        assert!(parse_volume("io2:size=64T,iops=1000").is_ok());
        // An r6i.8xlarge carries at most 40,000 IOPS of a 256,000-IOPS volume (seed 001).
        let r = instance("r6i.8xlarge").unwrap();
        let c = expected_ceiling(Some(&v), Some(&r), 4096, 1.0).unwrap();
        assert!(close(c.iops, 40_000.0));
        assert!(
            c.limited_by.contains("instance r6i.8xlarge (40,000 IOPS)"),
            "{}",
            c.limited_by
        );
    }

    #[test]
    fn io2_price_example_of_seed_001() {
        // 500 GB at 100K IOPS = $62.50 + 32,000 x $0.065 + 32,000 x $0.0455 + 36,000 x $0.03185
        // = $62.50 + $2,080 + $1,456 + $1,146.60 = $4,745.10/month (the article rounds the
        // tier prices and gets $4,766.50).
        let v = parse_volume("io2-be:iops=100000,size=500G").unwrap();
        let c = v.monthly_cost().unwrap();
        assert!(close(c.storage, 62.5));
        assert!(close(c.iops, 2080.0 + 1456.0 + 1146.6), "{c:?}");
        assert!(close(c.total, 4745.1), "{c:?}");
        for line in [
            "IOPS up to 32,000: 32,000 x $0.065 = $2,080.00",
            "IOPS 32,001-64,000: 32,000 x $0.0455 = $1,456.00",
            "IOPS above 64,000: 36,000 x $0.03185 = $1,146.60",
        ] {
            assert!(
                c.detail.iter().any(|l| l == line),
                "{line} in {:?}",
                c.detail
            );
        }
        // The total is printed once, by the caller; no "IOPS above 0" line for a single tier.
        assert!(
            c.detail.iter().all(|l| !l.contains("total")),
            "{:?}",
            c.detail
        );
        let io1 = parse_volume("io1:iops=48000,size=1000G")
            .unwrap()
            .monthly_cost()
            .unwrap();
        assert!(
            io1.detail
                .iter()
                .any(|l| l == "IOPS: 48,000 x $0.065 = $3,120.00"),
            "{:?}",
            io1.detail
        );
        let text = cost_text(&v, Some(60_000.0), None);
        assert!(
            text.contains("  total: $4,745.10 per month\n")
                && text.contains("right-sizing for a p99 peak of 60,000 IOPS of 16 KiB:"),
            "iolens cost's text for {}: the total with its thousands separator, then the right-sizing:\n{text}",
            v.name()
        );
    }

    #[test]
    fn other_prices() {
        let c = parse_volume("gp3:iops=6000,throughput=250,size=100G")
            .unwrap()
            .monthly_cost()
            .unwrap();
        // $8 storage + 3,000 x $0.005 + 125 x $0.04.
        assert!(close(c.total, 8.0 + 15.0 + 5.0), "{c:?}");
        let c = parse_volume("io1:iops=48000,size=1000G")
            .unwrap()
            .monthly_cost()
            .unwrap();
        assert!(close(c.total, 125.0 + 48_000.0 * 0.065));
        let c = parse_volume("oci-balanced:size=1000G")
            .unwrap()
            .monthly_cost()
            .unwrap();
        assert!(close(c.total, 1000.0 * (0.0255 + 10.0 * 0.0017)), "{c:?}");
        assert!(parse_volume("custom:iops=10")
            .unwrap()
            .monthly_cost()
            .is_none());
        assert!(parse_volume("azure-premium-v2")
            .unwrap()
            .monthly_cost()
            .is_none());
    }

    #[test]
    fn hdd_figures() {
        let v = parse_volume("st1:size=2T").unwrap();
        // 40 MiB/s per TiB baseline, 250 per TiB burst capped 500.
        assert!(close(v.throughput_bytes_per_s(), 80.0 * MIB));
        let b = v.burst().unwrap();
        assert!(close(b.bytes_per_s, 500.0 * MIB));
        // Random 4 KiB: every I/O uses 1 MiB of credit -> 80 IOPS at baseline.
        let c = v.ceiling(4096, 1.0);
        assert!(close(c.iops, 80.0), "{c:?}");
        assert!(c.limited_by.contains("uses 1 MiB"), "{}", c.limited_by);
        // Sequential 1 MiB: 80 MiB/s -> 80 IOPS, 1 MiB each.
        let c = v.ceiling_with(1 << 20, 1.0, true);
        assert!(close(c.bytes_per_s, 80.0 * MIB));
        let big = parse_volume("st1:size=16T").unwrap();
        assert!(close(big.throughput_bytes_per_s(), 500.0 * MIB));
        let sc = parse_volume("sc1:size=16T").unwrap();
        assert!(close(sc.throughput_bytes_per_s(), 192.0 * MIB));
        assert!(close(sc.iops(), 250.0));
        assert!(parse_volume("st1:size=100G").is_err());
    }

    #[test]
    fn oci_figures() {
        let v = parse_volume("oci-balanced:size=1000G").unwrap();
        // 60 IOPS/GB x 1,000 = 60,000, capped at 25,000; 480 KB/s/GB x 1,000 = 480 MB/s.
        assert!(close(v.iops(), 25_000.0));
        assert!(close(v.throughput_bytes_per_s(), 480e6));
        let v = parse_volume("oci-balanced:size=50G").unwrap();
        assert!(close(v.iops(), 3_000.0));
        assert!(close(v.throughput_bytes_per_s(), 24e6));
        let v = parse_volume("oci-lower-cost:size=1000G").unwrap();
        assert!(close(v.iops(), 2_000.0));
        assert!(close(v.throughput_bytes_per_s(), 240e6));
        let v = parse_volume("oci-higher-performance:size=1000G").unwrap();
        assert!(close(v.iops(), 50_000.0));
        assert!(close(v.throughput_bytes_per_s(), 600e6));
        let v = parse_volume("oci-uhp:size=2000G,vpus=120").unwrap();
        assert!(close(v.iops(), 300_000.0));
        assert!(close(v.throughput_bytes_per_s(), 2_680e6));
        let v = parse_volume("oci-uhp:size=100G").unwrap();
        assert!(close(v.iops(), 9_000.0)); // 30 VPUs: 90 IOPS/GB (interpolated)
        assert!(parse_volume("oci-uhp:size=100G,vpus=35").is_err());
        let e = parse_volume("oci-balanced:size=100G,vpus=20")
            .unwrap_err()
            .to_string();
        assert!(e.contains("oci-balanced takes size"), "{e}");
        assert!(parse_volume("oci-balanced:size=10G").is_err());
    }

    #[test]
    fn gcp_and_azure_figures() {
        let v = parse_volume("gcp-hyperdisk-balanced").unwrap();
        assert!(close(v.iops(), 3_000.0));
        assert!(close(v.throughput_bytes_per_s(), 140.0 * MIB));
        let v = parse_volume("gcp-hyperdisk-balanced:iops=160000,throughput=2400").unwrap();
        assert_eq!(v.size_gib(), Some(320.0));
        assert!(parse_volume("gcp-hyperdisk-balanced:iops=160001").is_err());
        let v = parse_volume("gcp-pd-ssd:size=500G").unwrap();
        assert!(close(v.iops(), 15_000.0));
        assert!(close(v.throughput_bytes_per_s(), 240.0 * MIB));
        let v = parse_volume("gcp-pd-ssd:size=10T").unwrap();
        assert!(close(v.iops(), 100_000.0));
        assert!(close(v.throughput_bytes_per_s(), 1200.0 * MIB));
        let v = parse_volume("azure-premium-v2").unwrap();
        assert!(close(v.iops(), 3_000.0));
        assert!(close(v.throughput_bytes_per_s(), 125e6));
        let v = parse_volume("azure-premium-v2:iops=80000,throughput=1200").unwrap();
        assert_eq!(v.size_gib(), Some(160.0));
        assert!(close(v.throughput_bytes_per_s(), 1200e6));
        assert!(parse_volume("azure-premium-v2:iops=3000,throughput=800").is_err());
    }

    #[test]
    fn custom_volumes() {
        let v = parse_volume("custom:iops=2000").unwrap();
        assert!(close(v.ceiling(4096, 1.0).iops, 2000.0));
        assert_eq!(v.name(), "custom 2,000 IOPS");
        let v = parse_volume("custom:iops=2000,throughput=100,latency=500us").unwrap();
        assert!(close(v.typical_latency_us(), 500.0));
        assert!(close(v.ceiling(1 << 20, 1.0).iops, 100.0));
        assert!(parse_volume("custom").is_err());
        assert!(parse_volume("custom:latency=1ms").is_err());
    }

    #[test]
    fn bad_specs_list_types_and_fields() {
        let e = parse_volume("io3:iops=1").unwrap_err().to_string();
        assert!(e.starts_with("unknown volume type 'io3'; known types: gp2 (size), gp3 (iops, throughput, size, limits), io1 (iops, size)"), "{e}");
        for t in [
            "azure-ultra (iops, throughput, size)",
            "azure-premium-ssd (size)",
            "gcp-pd-balanced (size)",
            "gcp-hyperdisk-extreme (iops, size)",
            "oci-uhp (size, vpus, attach)",
            "st1 (size)",
            "sc1 (size)",
            "gcp-hyperdisk-balanced (iops, throughput, size)",
            "azure-premium-v2 (iops, throughput, size)",
            "custom (iops, throughput, latency, size)",
        ] {
            assert!(e.contains(t), "{t} missing from: {e}");
        }
        let e = parse_volume("io1:iops=48000,speed=9")
            .unwrap_err()
            .to_string();
        assert!(
            e.contains("unknown field 'speed'") && e.contains("io1 takes iops, size"),
            "{e}"
        );
        let e = parse_volume("io1:iops=70000").unwrap_err().to_string();
        assert!(e.contains("100..64,000"), "{e}");
        let e = parse_volume("io1:iops=48000,size=500G")
            .unwrap_err()
            .to_string();
        assert!(
            e.contains("50 IOPS per GiB") && e.contains("size >= 960 GiB"),
            "{e}"
        );
        let e = parse_volume("io1").unwrap_err().to_string();
        assert!(e.contains("io1 needs iops="), "{e}");
        let e = parse_volume("io1:iops").unwrap_err().to_string();
        assert!(e.contains("not field=value"), "{e}");
        let e = parse_volume("io1:iops=1,iops=2").unwrap_err().to_string();
        assert!(e.contains("twice"), "{e}");
        let e = parse_volume("").unwrap_err().to_string();
        assert!(e.contains("known types"), "{e}");
    }

    #[test]
    fn spec_round_trips() {
        for s in [
            "io1:iops=48000,size=960G",
            "gp3:iops=6000,throughput=250,size=12G",
            "gp2:size=500G",
            "st1:size=2048G",
            "oci-uhp:vpus=60,size=1000G",
            "custom:iops=2000,latency=500us",
            "azure-premium-v2:iops=3000,throughput=125,size=1G",
            // Four-digit figures are written without a thousands separator.
            "azure-premium-v2:iops=80000,throughput=2000,size=2000G",
            "azure-ultra:iops=100000,throughput=4000,size=1024G",
        ] {
            let v = parse_volume(s).unwrap();
            assert_eq!(v.spec(), s);
            assert_eq!(parse_volume(&v.spec()).unwrap().name(), v.name());
        }
    }

    #[test]
    fn a_gcp_machine_caps_its_persistent_disk() {
        // pd-ssd of 2 TiB allows 61,440 IOPS; an n2-standard-8 carries 15,000 to it.
        let n2 = instance("n2-standard-8").unwrap();
        let ssd = parse_volume("pd-ssd:size=2T").unwrap();
        let c = expected_ceiling(Some(&ssd), Some(&n2), 4096, 1.0).unwrap();
        assert!(close(c.iops, 15_000.0), "expected 15,000 IOPS, got {c:?}");
        assert!(
            c.limited_by == "instance n2-standard-8 on pd-ssd (15,000 IOPS)",
            "{}",
            c.limited_by
        );
        // 1 MiB reads: 800 MiB/s on the VM, 983 MiB/s on the disk.
        let c = expected_ceiling(Some(&ssd), Some(&n2), 1 << 20, 1.0).unwrap();
        assert!(
            close(c.iops, 800.0),
            "expected 800 IOPS of 1 MiB, got {c:?}"
        );
        // pd-standard 50/50: one IOPS budget, 1 / (0.5 / 5,000 + 0.5 / 15,000) = 7,500; the
        // volume's own 0.75 IOPS/GiB x 10 TiB = 7,680 is above it.
        let hdd = parse_volume("pd-standard:size=10T").unwrap();
        let c = expected_ceiling(Some(&hdd), Some(&n2), 4096, 0.5).unwrap();
        assert!(close(c.iops, 7_500.0), "expected 7,500 IOPS, got {c:?}");
        // Hyperdisk: the machine's caps for it are not modelled, the volume's own apply.
        let hd = parse_volume("gcp-hyperdisk-balanced:iops=50000,throughput=1200").unwrap();
        let c = expected_ceiling(Some(&hd), Some(&n2), 4096, 1.0).unwrap();
        assert!(
            close(c.iops, 50_000.0) && c.limited_by.starts_with("volume"),
            "{c:?}"
        );
        assert!(expected_ceiling(None, Some(&n2), 4096, 1.0).is_none());
        // A named machine's row replaces the disk type's per-instance maximum: N1 with 64
        // vCPUs carries 100,000 IOPS to pd-balanced (whose general maximum is 80,000), and an
        // n2-standard-64 reads and writes pd-ssd at 1,200 MiB/s each at once.
        let n1 = instance("n1-standard-64").unwrap();
        let bal = parse_volume("pd-balanced:size=20T").unwrap();
        let c = expected_ceiling(Some(&bal), Some(&n1), 4096, 1.0).unwrap();
        assert!(
            close(c.iops, 100_000.0),
            "expected N1-64's 100,000 IOPS, got {c:?}"
        );
        assert!(
            close(bal.iops(), 80_000.0),
            "without a machine, pd-balanced's 80,000"
        );
        let n2_64 = instance("n2-standard-64").unwrap();
        let big = parse_volume("pd-ssd:size=10T").unwrap();
        let c = expected_ceiling(Some(&big), Some(&n2_64), 1 << 20, 0.5).unwrap();
        assert!(
            close(c.iops, 2_400.0),
            "expected 1,200 + 1,200 MiB/s of 1 MiB I/O, got {c:?}"
        );
        // pd-standard writes get 1.5 IOPS per GiB (15,000 at most), reads 0.75 (7,500).
        let hdd = parse_volume("pd-standard:size=10T").unwrap();
        let w = expected_ceiling(Some(&hdd), None, 4096, 0.0).unwrap();
        assert!(
            close(w.iops, 15_000.0),
            "expected 15,000 write IOPS, got {w:?}"
        );
        let r = expected_ceiling(Some(&hdd), None, 4096, 1.0).unwrap();
        assert!(
            close(r.iops, 7_500.0),
            "expected 7,500 read IOPS, got {r:?}"
        );
        let m = expected_ceiling(Some(&hdd), None, 4096, 0.5).unwrap();
        assert!(
            close(m.iops, 10_000.0),
            "expected 1 / (0.5 / 7,500 + 0.5 / 15,000), got {m:?}"
        );
        // pd-ssd's per-VM baseline: 6,000 IOPS and 240 MiB/s however small the disk.
        let small = parse_volume("pd-ssd:size=100G").unwrap();
        assert!(close(small.iops(), 6_000.0) && close(small.throughput_bytes_per_s(), 240.0 * MIB));
        assert!(
            small
                .limits(false)
                .iops_text
                .contains("6,000 IOPS baseline (above 100 GiB x 30 IOPS per GiB = 3,000 IOPS)"),
            "{}",
            small.limits(false).iops_text
        );
    }

    #[test]
    fn instance_caps_in_the_ceiling() {
        let c7g = instance("c7g.16xlarge").unwrap();
        let io1 = parse_volume("io1:iops=48000").unwrap();
        let c = expected_ceiling(Some(&io1), Some(&c7g), 16384, 1.0).unwrap();
        assert!(close(c.iops, 48_000.0));
        assert!(
            c.formula.contains("c7g.16xlarge 80,000 IOPS"),
            "{}",
            c.formula
        );
        let c = expected_ceiling(None, Some(&c7g), 16384, 1.0).unwrap();
        assert!(close(c.iops, 80_000.0));
        assert!(c.limited_by.contains("instance c7g.16xlarge (80,000 IOPS)"));
        // 1 MiB I/O: 2,500 MB/s / 1 MiB = 2,384 IOPS.
        let c = expected_ceiling(None, Some(&c7g), 1 << 20, 1.0).unwrap();
        assert!(close(c.iops, 2.5e9 / 1_048_576.0));
        assert!(expected_ceiling(None, None, 4096, 1.0).is_none());
        // Burst instances are taken at their maximum and say so.
        let m5 = instance("m5.large").unwrap();
        let gp3 = parse_volume("gp3:iops=16000,throughput=1000").unwrap();
        let c = expected_ceiling(Some(&gp3), Some(&m5), 16384, 1.0).unwrap();
        assert!(close(c.iops, 16_000.0));
        let c = expected_ceiling(Some(&gp3), Some(&m5), 256 * 1024, 1.0).unwrap();
        assert!(c.limited_by.contains("m5.large"), "{}", c.limited_by);
        assert!(c.limited_by.contains("30 min"), "{}", c.limited_by);
        // An Azure VM caps a Premium SSD v2 disk: 20,000 IOPS bursting (30 minutes at a time),
        // 6,400 sustained.
        let d4s = instance("Standard_D4s_v5").unwrap();
        let v2 = parse_volume("azure-premium-v2:iops=40000,throughput=600").unwrap();
        let c = expected_ceiling(Some(&v2), Some(&d4s), 4096, 1.0).unwrap();
        assert!(close(c.iops, 20_000.0), "{c:?}");
        assert!(
            c.limited_by.contains("standard_d4s_v5") && c.limited_by.contains("30 minutes"),
            "{}",
            c.limited_by
        );
    }

    #[test]
    fn right_sizing() {
        let v = parse_volume("io2-be:iops=100000,size=500G").unwrap();
        let r = right_size(&v, 40_000.0, None);
        assert_eq!(r.volume.iops, Some(48_000.0));
        let cost = r.cost.as_ref().unwrap();
        // 62.50 + 32,000 x 0.065 + 16,000 x 0.0455 = 2,870.50
        assert!(close(cost.total, 2870.5), "{cost:?}");
        assert!(close(r.saving.unwrap(), 4745.1 - 2870.5));
        assert!(
            r.explanation.contains("40,000 x 1.2 = 48,000"),
            "{}",
            r.explanation
        );
        assert!(
            r.explanation.contains("saves $1,874.60"),
            "{}",
            r.explanation
        );
        // A 20,000-IOPS peak of 16 KiB stays on gp3 with 375 MiB/s (24,000 x 16 KiB):
        // $8 + 21,000 x $0.005 + 250 x $0.04 = $123/month.
        let r = right_size(
            &parse_volume("gp3:size=100G").unwrap(),
            20_000.0,
            Some(16384),
        );
        assert_eq!(r.volume.spec(), "gp3:iops=24000,throughput=375,size=100G");
        assert!(close(r.cost.as_ref().unwrap().total, 123.0), "{:?}", r.cost);
        // gp3 never goes below its included 3,000 IOPS.
        let g = parse_volume("gp3:iops=10000,size=100G").unwrap();
        let r = right_size(&g, 1000.0, None);
        assert_eq!(r.volume.iops, Some(3000.0));
        // io1 beyond its maximum is clamped and says what to do.
        let r = right_size(&parse_volume("io1:iops=1000").unwrap(), 100_000.0, None);
        assert_eq!(r.volume.iops, Some(64_000.0));
        assert!(
            r.explanation.contains("io2 (up to 256,000 IOPS)"),
            "{}",
            r.explanation
        );
        assert_eq!(r.volume.size_gib, Some(1280.0));
        // gp2 grows to the size that gives the IOPS, and never shrinks.
        let r = right_size(&parse_volume("gp2:size=100G").unwrap(), 1000.0, None);
        assert_eq!(r.volume.size_gib, Some(400.0));
        let r = right_size(&parse_volume("gp2:size=2000G").unwrap(), 100.0, None);
        assert_eq!(r.volume.size_gib, Some(2000.0));
        assert!(
            r.explanation.contains("cannot be shrunk"),
            "{}",
            r.explanation
        );
        let r = right_size(&parse_volume("st1:size=2T").unwrap(), 100.0, None);
        assert!(r.explanation.contains("throughput"), "{}", r.explanation);
    }

    /// `cost --volume gp3 --p99-iops 20000 --bs 16k`: 24,000 IOPS gave 8,000 IOPS of 16 KiB at
    /// the included 125 MiB/s; the throughput is provisioned too, and a volume below the peak
    /// is not "saved" on.
    #[test]
    fn right_sizing_provisions_the_throughput_of_the_io_size() {
        let v = parse_volume("gp3").unwrap();
        let r = right_size(&v, 20_000.0, Some(16 * KIB));
        assert_eq!(
            r.volume.spec(),
            "gp3:iops=24000,throughput=375,size=48G",
            "gp3 for 20,000 IOPS of 16 KiB: {:?}",
            r.lines
        );
        let c = r.volume.ceiling(16 * KIB, 1.0);
        assert!(
            c.iops >= 24_000.0,
            "the right-sized gp3 carries 24,000 IOPS of 16 KiB, got {c:?}"
        );
        let text = cost_text(&v, Some(20_000.0), Some(16 * KIB));
        for want in [
            "20,000 x 1.2 = 24,000 IOPS of 16 KiB = 375 MiB/s",
            "the peak alone: 20,000 x 16 KiB = 313 MiB/s",
            "gp3 24,000 IOPS, 375 MiB/s, 48 GiB costs $118.84/month",
            "carries only 3,000 IOPS of 16 KiB",
            "--volume gp3:iops=24000,throughput=375,size=48G",
        ] {
            assert!(
                text.contains(want),
                "cost --volume gp3 --p99-iops 20000 --bs 16k: expected '{want}' in:\n{text}"
            );
        }
        assert!(
            !text.contains("instead of $0.08"),
            "no saving is claimed against a volume below the peak:\n{text}"
        );
        // Without --bs the text says which size it assumed.
        let text = cost_text(&v, Some(20_000.0), None);
        assert!(text.contains("No I/O size given: 16 KiB assumed"), "{text}");
        // Large I/O: 1,000 x 1 MiB on gp3 counts 4 IOPS each and needs 1,200 MiB/s.
        let r = right_size(&v, 1_000.0, Some(1 << 20));
        assert_eq!(r.volume.spec(), "gp3:iops=4800,throughput=1200,size=10G");
    }

    #[test]
    fn ultra_disk_allows_0_25_mb_s_per_provisioned_iops() {
        // Microsoft's disks-types page: "0.25 MB/s for each provisioned IOPS ... (where MB/s =
        // 10^6 Bytes per second)"; its size table gives 4 GiB 4,000 IOPS and 1,000 MB/s.
        let u = parse_volume("azure-ultra:iops=4000,size=4G").unwrap();
        assert!(
            close(u.throughput_bytes_per_s(), 1_000e6),
            "azure-ultra 4,000 IOPS without throughput: expected the most allowed, 4,000 x 0.25 = 1,000 MB/s, got {} B/s",
            u.throughput_bytes_per_s()
        );
        let e = parse_volume("azure-ultra:iops=4000,throughput=1001,size=4G")
            .unwrap_err()
            .to_string();
        assert!(
            e.contains("1..1,000 MB/s for 4,000 IOPS") && e.contains("0.25 MB/s per IOPS"),
            "1,001 MB/s on 4,000 IOPS is above 4,000 x 0.25: {e}"
        );
        // 1,000 reads of 1 MiB a second with 20 % headroom: 1,200 x 1,048,576 B = 1,258.3 MB/s,
        // provisioned as 1,259 MB/s, which needs 1,259 / 0.25 = 5,036 IOPS; at 1,000 IOPS per
        // GiB they need ceil(5.036) = 6 GiB.
        let r = right_size(
            &parse_volume("azure-ultra").unwrap(),
            1_000.0,
            Some(1 << 20),
        );
        assert_eq!(
            r.volume.spec(),
            "azure-ultra:iops=5036,throughput=1259,size=6G",
            "azure-ultra for 1,000 x 1 MiB reads a second: {:?}",
            r.lines
        );
    }

    #[test]
    fn audit_of_issue_9() {
        // st1/sc1 merge sequential I/O up to 1 MiB: a 16 TiB st1 reaches 500 MiB/s with
        // 128 KiB sequential reads (8 merged per 1 MiB operation).
        let st1 = parse_volume("st1:size=16T").unwrap();
        let c = st1.ceiling_with(128 * KIB, 1.0, true);
        assert!(close(c.bytes_per_s, 500.0 * MIB), "{c:?}");
        // Random 128 KiB still costs a full 1 MiB each.
        let c = st1.ceiling_with(128 * KIB, 1.0, false);
        assert!(close(c.bytes_per_s, 500.0 * MIB / 8.0), "{c:?}");
        // The burst ceiling respects the instance's caps: gp2 bursts to 3,000 IOPS, but a
        // burst instance at its baseline cannot take more than the instance allows.
        let gp2 = parse_volume("gp2:size=100G").unwrap();
        let m5 = instance("m5.large").unwrap();
        let alone = gp2.burst_ceiling(256 * KIB, 1.0, false).unwrap();
        let on = gp2
            .burst_ceiling_on(Some(&m5), 256 * KIB, 1.0, false)
            .unwrap();
        assert!(
            on.iops <= alone.iops + 1e-9 && on.iops <= 593.75e6 / (256.0 * 1024.0) + 1e-6,
            "{on:?}"
        );
        // OCI UHP: 300,000 IOPS over iSCSI multipath, 150,000 paravirtualized.
        let v = parse_volume("oci-uhp:size=2000G,vpus=120").unwrap();
        assert!(close(v.iops(), 300_000.0));
        let v = parse_volume("oci-uhp:size=2000G,vpus=120,attach=pv").unwrap();
        assert!(close(v.iops(), 150_000.0));
        assert_eq!(v.spec(), "oci-uhp:vpus=120,size=2000G,attach=pv");
        assert!(parse_volume("oci-uhp:size=2000G,attach=usb").is_err());
        // Azure Premium SSD v2: 2,000 MB/s from 8,000 IOPS.
        let v = parse_volume("azure-premium-v2:iops=8000,throughput=2000").unwrap();
        assert!(close(v.throughput_bytes_per_s(), 2000e6));
        assert!(parse_volume("azure-premium-v2:iops=7999,throughput=2000").is_err());
        // The models the audit found missing.
        let u = parse_volume("azure-ultra:iops=400000,size=1024G").unwrap();
        assert!(close(u.iops(), 400_000.0));
        assert!(close(u.throughput_bytes_per_s(), 10_000e6));
        assert!(parse_volume("ultra:iops=400001").is_err());
        let p = parse_volume("azure-premium-ssd:size=1000G").unwrap();
        assert!(close(p.iops(), 5_000.0) && close(p.throughput_bytes_per_s(), 200e6));
        assert!(p.name().contains("P30"), "{}", p.name());
        assert!(p.notes()[0].contains("tier P30"), "{:?}", p.notes());
        let b = parse_volume("pd-balanced:size=100G").unwrap();
        assert!(
            close(b.iops(), 3_000.0),
            "baseline 3,000 IOPS below 500 GiB"
        );
        let b = parse_volume("gcp-pd-balanced:size=1000G").unwrap();
        assert!(close(b.iops(), 6_000.0) && close(b.throughput_bytes_per_s(), 280.0 * MIB));
        let s = parse_volume("gcp-pd-standard:size=1000G").unwrap();
        assert!(close(s.iops(), 750.0));
        let x = parse_volume("gcp-hyperdisk-extreme:iops=350000").unwrap();
        assert!(close(x.throughput_bytes_per_s(), 5_000.0 * MIB));
        assert_eq!(x.io_unit(), None);
        assert!(parse_volume("hyperdisk-extreme:iops=350001").is_err());
        let t = parse_volume("gcp-hyperdisk-throughput:size=32T,throughput=2400").unwrap();
        assert!(close(t.iops(), 9_600.0) && close(t.throughput_bytes_per_s(), 2400.0 * MIB));
        let t = parse_volume("hyperdisk-throughput").unwrap();
        assert!(close(t.throughput_bytes_per_s(), 20.0 * MIB) && close(t.iops(), 80.0));
        let e = parse_volume("hyperdisk-throughput:size=2T,throughput=200")
            .unwrap_err()
            .to_string();
        assert!(e.contains("20..180 MiB/s"), "{e}");
        let i = instance("i4i.32xlarge").unwrap();
        assert_eq!((i.max_iops, i.max_mb_s), (160_000.0, 5_000.0));
        assert!(instance("i4i.large").unwrap().burst);
        // Sources: no internal paths, and a source and date everywhere in the JSON listing.
        let j = list_models_json();
        let text = j.to_string();
        assert!(!text.contains("shared/") && !list_models().contains("shared/"));
        for v in j["volumes"].as_array().unwrap() {
            assert!(
                v["source"].as_str().is_some_and(|s| !s.is_empty()),
                "{}",
                v["type"]
            );
            assert!(
                v["date"].as_str().is_some_and(|s| !s.is_empty()),
                "{}",
                v["type"]
            );
            assert!(
                v["limits"].as_array().is_some_and(|l| !l.is_empty()),
                "{}",
                v["type"]
            );
        }
        for i in j["instances"].as_array().unwrap() {
            assert!(
                i["source"].as_str().is_some_and(|s| !s.is_empty()),
                "{}",
                i["name"]
            );
        }
    }

    /// Words that speak of how the data was gathered rather than of the figure.
    const MAKING: &[&str] = &[
        "audit",
        "could not be read",
        "not read here",
        "this project",
        "machine-translated",
        "peer survey",
        "as far as we know",
        "stored here",
        "read here",
        "verified here",
        "checked here",
    ];

    /// The first phrase of [`MAKING`] (or an issue number) in `text`, with its line.
    fn making(text: &str) -> Option<(String, &'static str)> {
        text.lines().find_map(|l| {
            let lower = l.to_ascii_lowercase();
            let numbered = lower
                .match_indices("issue ")
                .any(|(i, m)| lower[i + m.len()..].starts_with(|c: char| c.is_ascii_digit()));
            if numbered {
                return Some((l.to_string(), "issue N"));
            }
            MAKING
                .iter()
                .find(|m| lower.contains(*m))
                .map(|m| (l.to_string(), *m))
        })
    }

    #[test]
    fn model_text_gives_figures_sources_and_dates_not_their_making() {
        let json = serde_json::to_string_pretty(&list_models_json()).unwrap();
        let mut outputs = vec![
            ("models".to_string(), list_models()),
            ("models --sources".to_string(), list_sources()),
            ("models --format json".to_string(), json),
        ];
        let book = PriceBook::shipped();
        for v in data::data()
            .volumes
            .iter()
            .filter(|v| book.resolve(&v.ty).is_ok())
        {
            let vol = [
                String::new(),
                ":size=1000G".into(),
                ":size=1000G,iops=3000".into(),
            ]
            .iter()
            .find_map(|f| parse_volume(&format!("{}{f}", v.ty)).ok())
            .unwrap_or_else(|| panic!("{}: no spec of the three tried parses", v.ty));
            outputs.push((
                format!("cost --volume {}", v.ty),
                cost_text(&vol, None, None),
            ));
        }
        for (what, text) in &outputs {
            if let Some((line, m)) = making(text) {
                panic!("{what}: expected no words about how the data was gathered, found '{m}' in: {line}");
            }
        }
        // Every price line: the figure, its source, its date and, where so, one word.
        let l = list_models();
        for line in l.lines().filter(|x| x.trim_start().starts_with("price ")) {
            let cite = line.rsplit_once(" (").map_or("", |(_, c)| c);
            let dated = cite
                .strip_suffix("; unverified)")
                .and_then(|c| c.rsplit_once("; "))
                .is_some_and(|(_, date)| date.starts_with("20") && date.len() >= 7);
            assert!(
                dated && cite.len() < 80,
                "expected a price line ending in a short '(SOURCE; DATE; unverified)', got: {line}"
            );
        }
        // The long provenance is in --sources and the JSON, with what is unverified and why.
        let s = list_sources();
        for want in [
            "Traditional Chinese edition",
            "unverified: the 64 TiB maximum size",
            "unverified: not checked against the vendor's current price page",
            "unverified: not a published row",
            "c7i.48xlarge, r7i.large",
            "i4i.metal, i7ie.large",
        ] {
            assert!(
                s.contains(want),
                "models --sources should say '{want}':\n{s}"
            );
        }
        let j = list_models_json();
        let gp3 = &j["volumes"][1];
        assert!(
            gp3["type"] == "gp3"
                && gp3["unverified"].is_string()
                && gp3["details"]
                    .as_str()
                    .is_some_and(|d| d.contains("STG320")),
            "models --format json keeps gp3's provenance: {gp3}"
        );
    }

    #[test]
    fn listing_mentions_everything() {
        let l = list_models();
        assert!(l.contains(data_version()));
        for t in [
            "gp2",
            "gp3",
            "io1",
            "io2",
            "io2-be",
            "st1",
            "sc1",
            "oci-lower-cost",
            "oci-balanced",
            "oci-higher-performance",
            "oci-uhp",
            "gcp-hyperdisk-balanced",
            "gcp-pd-ssd",
            "gcp-pd-balanced",
            "gcp-pd-standard",
            "gcp-hyperdisk-extreme",
            "gcp-hyperdisk-throughput",
            "azure-premium-v2",
            "azure-premium-ssd",
            "azure-ultra",
            "Ultra Disk",
            "Hyperdisk Extreme",
            "i4i.32xlarge",
            "custom",
            "c7g.16xlarge",
            "r6i.metal",
            "m5.large *",
            "c6in.metal",
            "m7g.metal",
            "standard_d4s_v5 *",
            "standard_e104is_v5",
            "vm.standard.e4.flex.N",
            "bm.standard.e5.192",
            "source:",
        ] {
            assert!(l.contains(t), "{t}");
        }
    }
}

#[cfg(test)]
mod props {
    use super::*;
    use proptest::prelude::*;

    proptest! {
        #[test]
        fn io1_ceilings_respect_the_provisioned_limits(iops in 100u32..=64_000, bs_kib in 1u64..=2048) {
            let v = parse_volume(&format!("io1:iops={iops}")).unwrap();
            let c = v.ceiling(bs_kib * 1024, 1.0);
            prop_assert!(c.iops <= iops as f64 + 1e-6);
            prop_assert!(c.bytes_per_s <= 1000.0 * 1_048_576.0 + 1e-3);
            prop_assert!((c.iops * (bs_kib * 1024) as f64 - c.bytes_per_s).abs() < 1e-3);
            let i = instance("r6i.8xlarge").unwrap();
            let e = expected_ceiling(Some(&v), Some(&i), bs_kib * 1024, 0.5).unwrap();
            prop_assert!(e.iops <= c.iops + 1e-6 && e.iops <= 40_000.0 + 1e-6);
        }

        #[test]
        fn derived_sizes_are_accepted_back(iops in 3_000u32..=16_000, t in 125u32..=1000) {
            let t = t.min(iops / 4);
            let v = parse_volume(&format!("gp3:iops={iops},throughput={t}")).unwrap();
            let again = parse_volume(&v.spec()).unwrap();
            prop_assert_eq!(again.name(), v.name());
        }
    }
}
