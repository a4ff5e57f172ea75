//! The road model and router of the distance group.
//!
//! * [`network`]: the roads layer of a pack in memory;
//! * [`profile`]: access, direction, speeds and turn costs of `driving`, `truck`, `walking`
//!   and `cycling`, metrics `time` and `distance`;
//! * [`density`]: road density around each node (built-up or open country), for speeds and
//!   junction costs;
//! * [`derived`]: the network, its snap index and the turn graphs derived from a pack, kept
//!   in mapped files keyed by the pack's digests and the engine code;
//! * [`graph`]: the turn-expanded graph of a profile (turn restrictions included);
//! * [`join`]: installed region packs merged into one network (ADR 0008);
//! * [`overlay`]: time-metric searches across joined packs on the packs' own hierarchies;
//! * [`ch`]: contraction hierarchies prepared with `fast_paths` at build time and stored in
//!   the pack (`routing/<profile>-time.fp`: the time metric only, ADR 0006), point-to-point
//!   and many-to-many queries;
//! * [`cch`]: the same hierarchies prepared in a nested-dissection order (customisable CH,
//!   ADR 0007), for networks too large for `fast_paths`' contraction;
//! * [`prepare`]: a stored hierarchy prepared from a pack's roads, as the builder and a delta
//!   install make it;
//! * [`compact`]: the compact, zstd-compressed encoding of a stored hierarchy (ADR 0005);
//! * [`search`]: Dijkstra (reference, query-time avoidance, isochrones) and its directed form
//!   (A*) that answers the distance metric;
//! * [`memory`]: the pages of mapped layouts and the kept buffers handed back on request;
//! * [`snap`]: snapping to the nearest point of a usable edge (a static R-tree of edge pieces);
//! * [`reach`]: components of a profile's graph, so that points next to cut-off road pieces
//!   snap onto the main network unless the other end is on the same piece;
//! * [`router`]: [`Router`], all of it for one pack, loaded lazily, and the
//!   [`SearchAlgorithm`] a path search runs.
pub mod cch;
pub mod ch;
pub mod compact;
pub mod density;
pub mod derived;
pub mod etree;
pub mod flat;
pub mod graph;
pub mod join;
pub mod layout;
pub mod memory;
pub mod network;
pub mod overlay;
pub mod prepare;
pub mod profile;
pub mod reach;
pub mod router;
pub mod search;
pub mod snap;
pub mod spare;

pub use graph::TurnGraph;
pub use network::RoadNetwork;
pub use profile::{Metric, Profile};
pub use router::{ArcPath, Router, SearchAlgorithm};
