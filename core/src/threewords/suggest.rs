//! Suggestions for a partly typed or spoken three-word address.
//!
//! **Input.** Words are separated by dots (also the ideographic `。` and `｡`), spaces, commas,
//! hyphens, underscores or slashes; a leading `///` is dropped; letters are lower-cased and
//! accents folded (`Índex` is `index`). Voice input (`input-type` other than `text`) arrives
//! without dots and sometimes with the separators spoken: `index dot home dot raft` is read as
//! `index.home.raft`. Any other character is a 422 naming `input`, as is an input of more than
//! three words or longer than [`MAX_INPUT_CHARS`]; an input that is not yet two complete words
//! and at least one letter of the third is not an error but has no suggestion yet (an app calls
//! autosuggest on every keystroke).
//!
//! **Candidates.** Each of the two full words brings itself (cost 0), the listed words it is
//! heard as (homophones the list dropped, `there` → `their`: cost 0.4 by voice, 0.8 typed), its
//! other forms (plural for singular and back, `-ed`, `-ing`, `-er`, `-ly`: `homes` → `home`,
//! 0.6) and the listed words one edit away (insertion, deletion, substitution or swap of
//! neighbours, as the scheme's word classes read them: `waymark_threewords::v3::one_edit`;
//! 1.0; two edits, 2.0, only when nothing closer exists). The third word brings
//! the listed words it begins (the word itself 0, a completion 0.55), its homophones, other
//! forms and one-edit neighbours; when it begins no word, the words beginning with a one-edit
//! neighbour of it (1.55). When the third word is whole, the three best candidates of each
//! word are also combined in the five other orders (0.5 more: `home.index.raft` finds
//! `index.home.raft`).
//!
//! **Scoring.** Combinations are tried cheapest first; those that are no address or fall
//! outside a clip are dropped. Without a focus or a clip only the region of each combination
//! is needed, which its class signature and number give without inverting the permutation
//! (`waymark_threewords::v3::Scheme::region_of`): up to
//! [`MAX_CONVERSIONS`] are tried and only the answered squares are located. With a focus or a
//! clip every combination is weighed with its square (unless dropped early, below), up to
//! [`MAX_LOCATED`]: more than the words
//! beginning with any two letters (at most 1,426, `re…`), so from the second letter typed on
//! every completion is weighed; with one letter, the 2,000 most common completions. The score is the cost of the words, plus
//! `0.5 · log10(1 + km)` of the distance to `focus` when one is given, plus 0.04 for a sea
//! square when `prefer-land` holds (less than a completion costs: an address typed in full
//! stays first); ties go to the denser kind of square (dense, populated, land,
//! sea), then to more common words. The best [`MAX_SUGGESTIONS`] are answered, ranked 1, 2, 3.
//! A combination that cannot be among them is dropped before its square is found, which
//! changes no answer: when its score, with the distance to `focus` bounded from below by its
//! signature's tiles and then by its own tile ([`super::near`]), exceeds the third best score
//! found so far, or when no square of its tile lies inside the clips.
use unicode_normalization::UnicodeNormalization;
use unicode_normalization::char::is_combining_mark;
use waymark_threewords::forms::{base_forms, plural_forms};
use waymark_threewords::grid::Square;
use waymark_threewords::regions::SEA;
use waymark_threewords::v3::{SIGNATURES, each_edit, kind_position};

use super::index::{ThreeWordsIndex, Words};
use super::locate_named;
use super::near::{boxes_meet, tile_box, unit_of};
use crate::api::vocab::InputType;
use crate::api::{AutosuggestRequest, FieldError, LatLng, Loc, ThreeWordsSuggestion, kinds};
use crate::error::ApiError;
use crate::geo::{Pt, haversine_m, ring_contains};

/// Longest input read, in characters (three words of ten letters and their separators, with
/// room for typing mistakes).
pub const MAX_INPUT_CHARS: usize = 100;
/// Suggestions answered at most.
pub const MAX_SUGGESTIONS: usize = 3;
/// Squares converted at most for one request.
pub const MAX_CONVERSIONS: usize = 6_000;
/// Combinations located at most for one request with a focus or a clip.
pub const MAX_LOCATED: usize = 2_000;
/// Score added to a sea square under `prefer-land`: less than a completion costs, so the
/// address typed in full still comes first, but land wins among equal candidates.
const SEA_PENALTY: f64 = 0.04;
/// Cost of a completion of the third word: more than the focus term of a square 10 km from
/// the focus (`0.5 · log10(11)` ≈ 0.52), so an address typed in full is first whenever it lies
/// within 10 km of the focus. Completions that share the third word's class name squares of
/// the same tiles (the scheme's class signatures, ADR 0009), so one may lie nearer the focus
/// than the address typed.
const COMPLETION_COST: f32 = 0.55;
/// Weighed combinations put in order before the answer is picked from them (all are put in
/// order only when these hold fewer than [`MAX_SUGGESTIONS`] distinct squares).
const ORDERED_FIRST: usize = 32;
/// Candidates kept per full word.
const MAX_WORD_CANDIDATES: usize = 12;
/// Candidates kept for the third word.
const MAX_LAST_CANDIDATES: usize = 6_000;
/// Cost of another form of the stem (plural for singular, `-ed`, `-ing`, ...).
const FORM_COST: f32 = 0.6;
/// Cost of reading the words in another order than typed: less than a one-letter correction,
/// so the order typed wins among squares equally near the focus.
const ORDER_COST: f32 = 0.5;
/// Candidates of each word combined in other orders.
const ORDER_CANDIDATES: usize = 3;
/// The five other orders of three words.
const OTHER_ORDERS: [[usize; 3]; 5] = [[0, 2, 1], [1, 0, 2], [1, 2, 0], [2, 0, 1], [2, 1, 0]];

/// An input read as two full words and the start of the third.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Input {
    /// The two full words.
    pub words: [String; 2],
    /// The third word, possibly unfinished.
    pub last: String,
    /// Whether it came from a speech recogniser.
    pub voice: bool,
}

fn input_error(msg: String) -> ApiError {
    ApiError::validation(vec![FieldError::invalid(
        Loc::Query,
        "input",
        kinds::VALUE,
        msg,
    )])
}

fn is_separator(c: char) -> bool {
    matches!(c, '.' | '。' | '｡' | '．' | ',' | '-' | '_' | '/' | '\\') || c.is_whitespace()
}

/// Lower-case ASCII with accents folded; `None` when a letter has no a–z form.
fn fold_word(word: &str) -> Option<String> {
    // Plain ASCII letters: nothing to fold but the case.
    if word.bytes().all(|b| b.is_ascii_alphabetic()) {
        return Some(word.to_ascii_lowercase());
    }
    let folded: String = word
        .nfd()
        .filter(|c| !is_combining_mark(*c))
        .flat_map(char::to_lowercase)
        .map(|c| match c {
            'ß' => 's',
            'æ' => 'a',
            'ø' => 'o',
            'œ' => 'o',
            other => other,
        })
        .collect();
    folded
        .bytes()
        .all(|b| b.is_ascii_lowercase())
        .then_some(folded)
}

/// Reads `input` (see the module notes): `Ok(None)` when it is not yet complete enough.
pub fn parse_input(input: &str, input_type: InputType) -> Result<Option<Input>, ApiError> {
    let voice = input_type != InputType::Text;
    if input.chars().count() > MAX_INPUT_CHARS {
        return Err(input_error(format!(
            "input is longer than {MAX_INPUT_CHARS} characters: give three words joined by `.`"
        )));
    }
    let trimmed = input.trim_start().trim_start_matches('/');
    let mut words = Vec::new();
    for raw in trimmed.split(is_separator).filter(|w| !w.is_empty()) {
        let word = fold_word(raw).ok_or_else(|| {
            input_error(format!(
                "`{raw}` is not a word of a three-word address: use letters and join the three words with `.`"
            ))
        })?;
        words.push(word);
    }
    if voice && words.len() == 5 && words[1] == "dot" && words[3] == "dot" {
        words = vec![words[0].clone(), words[2].clone(), words[4].clone()];
    }
    if words.len() > 3 {
        return Err(input_error(format!(
            "{} words given: a three-word address has three, joined by `.`",
            words.len()
        )));
    }
    if words.len() < 3 {
        return Ok(None);
    }
    let mut it = words.into_iter();
    match (it.next(), it.next(), it.next()) {
        (Some(a), Some(b), Some(c)) => Ok(Some(Input {
            words: [a, b],
            last: c,
            voice,
        })),
        _ => Ok(None),
    }
}

/// The three words of a whole address (`words` of convert-to-coordinates): separated as in
/// autosuggest input, a leading `///` dropped, lower-cased and accents folded. 422 at `words`
/// saying what to fix when it is not three words of letters.
pub fn parse_address(text: &str) -> Result<[String; 3], ApiError> {
    let error = |msg: String| {
        ApiError::validation(vec![FieldError::invalid(
            Loc::Query,
            "words",
            kinds::VALUE,
            msg,
        )])
    };
    if text.chars().count() > MAX_INPUT_CHARS {
        return Err(error(format!(
            "words is longer than {MAX_INPUT_CHARS} characters: give three words joined by `.`"
        )));
    }
    let trimmed = text.trim_start().trim_start_matches('/');
    let mut words = Vec::new();
    for raw in trimmed.split(is_separator).filter(|w| !w.is_empty()) {
        words.push(fold_word(raw).ok_or_else(|| {
            error(format!(
                "`{raw}` is not a word of a three-word address: use letters and join the three words with `.`"
            ))
        })?);
    }
    match <[String; 3]>::try_from(words) {
        Ok(three) => Ok(three),
        Err(words) => Err(error(format!(
            "{} word{} given: a three-word address has three, joined by `.` (`index.home.raft`)",
            words.len(),
            if words.len() == 1 { "" } else { "s" }
        ))),
    }
}

/// `(rank, cost)` of every reading found, a rank possibly more than once.
type Found = Vec<(u32, f32)>;

/// Adds a reading of `rank` at `cost` (the cheapest per rank counts: [`sorted`]).
fn add(found: &mut Found, rank: u32, cost: f32) {
    found.push((rank, cost));
}

/// `(rank, cost)` at each rank's cheapest cost, sorted cheapest first, then by rank.
fn sorted(mut found: Found, keep: usize) -> Vec<(u32, f32)> {
    found.sort_unstable_by(|a, b| a.0.cmp(&b.0).then(a.1.total_cmp(&b.1)));
    found.dedup_by_key(|e| e.0);
    found.sort_unstable_by(|a, b| a.1.total_cmp(&b.1).then(a.0.cmp(&b.0)));
    found.truncate(keep);
    found
}

fn homophone_cost(voice: bool) -> f32 {
    if voice { 0.4 } else { 0.8 }
}

/// Adds the corrections of `token` to `found`: the listed words it is heard as, its other
/// forms (`homes` → `home`, `walked` → `walk`, `trouser` → `trousers`) and its one-edit
/// neighbours.
fn add_corrections(found: &mut Found, words: &Words, token: &str, voice: bool) {
    for &r in words.aliases.get(token).into_iter().flatten() {
        add(found, r, homophone_cost(voice));
    }
    for form in base_forms(token).into_iter().chain(plural_forms(token)) {
        if let Some(&r) = words.rank.get(form.as_str()) {
            add(found, r, FORM_COST);
        }
    }
    each_edit(token, |v| {
        if let Some(&r) = words.rank.get(v) {
            add(found, r, 1.0);
        }
    });
}

/// The listed words a full word may stand for, with their costs.
pub fn word_candidates(words: &Words, token: &str, voice: bool) -> Vec<(u32, f32)> {
    let mut found = Found::new();
    if let Some(&r) = words.rank.get(token) {
        add(&mut found, r, 0.0);
    }
    add_corrections(&mut found, words, token, voice);
    if found.is_empty() {
        // No listed word is the token or one edit from it, so the words within two edits
        // are the words two edits away: the first few by rank are kept.
        words.shapes.within_two(&words.list, token, |r| {
            add(&mut found, r, 2.0);
            found.len() < MAX_WORD_CANDIDATES
        });
    }
    sorted(found, MAX_WORD_CANDIDATES)
}

/// The listed words the third, possibly unfinished word may stand for.
pub fn last_candidates(words: &Words, token: &str, voice: bool) -> Vec<(u32, f32)> {
    let completions = words.with_prefix(token);
    let mut found = Found::with_capacity(completions.len() + 64);
    for (w, r) in completions {
        let missing = (w.len() - token.len()) as f32;
        add(
            &mut found,
            *r,
            if missing == 0.0 { 0.0 } else { COMPLETION_COST },
        );
    }
    add_corrections(&mut found, words, token, voice);
    if completions.is_empty() && token.len() >= 2 {
        each_edit(token, |v| {
            for (_, r) in words.with_prefix(v) {
                add(&mut found, *r, 1.0 + COMPLETION_COST);
            }
        });
    }
    sorted(found, MAX_LAST_CANDIDATES)
}

/// The clips of a request, tested on a square's centre, and on a tile's box before its
/// square is found.
struct Clip<'a> {
    req: &'a AutosuggestRequest,
    countries: Vec<String>,
    polygon: Vec<Pt>,
    /// Boxes `[south, west, north, east]` every kept centre lies in: the bounding box and
    /// the polygon's box.
    within: Vec<[f64; 4]>,
    /// Boxes one of which holds every kept centre: those of the outlines of the countries,
    /// when `clip-to-country` is given.
    any_of: Vec<[f64; 4]>,
    /// The circle's centre as a unit vector and its radius, metres.
    circle: Option<([f64; 3], f64)>,
}

impl<'a> Clip<'a> {
    fn new(req: &'a AutosuggestRequest, index: &ThreeWordsIndex) -> Self {
        let countries: Vec<String> = req
            .clip_to_country
            .iter()
            .map(|c| c.to_ascii_uppercase())
            .collect();
        let polygon: Vec<Pt> = req
            .clip_to_polygon
            .iter()
            .flatten()
            .map(|p| Pt::new(p.lat, p.lng))
            .collect();
        let mut within = Vec::new();
        if let Some(b) = &req.clip_to_bounding_box {
            within.push([
                b.southwest.lat,
                b.southwest.lng,
                b.northeast.lat,
                b.northeast.lng,
            ]);
        }
        // Outside the box of its vertices no edge of the ring is crossed an odd number of
        // times (`ring_contains`).
        if !polygon.is_empty()
            && polygon
                .iter()
                .all(|p| p.lat.is_finite() && p.lng.is_finite())
        {
            let mut b = [f64::MAX, f64::MAX, f64::MIN, f64::MIN];
            for p in &polygon {
                b = [
                    b[0].min(p.lat),
                    b[1].min(p.lng),
                    b[2].max(p.lat),
                    b[3].max(p.lng),
                ];
            }
            within.push(b);
        }
        let any_of = index
            .countries
            .iter()
            .filter(|c| countries.contains(&c.code))
            .map(|c| [c.bbox[1], c.bbox[0], c.bbox[3], c.bbox[2]])
            .collect();
        Clip {
            req,
            circle: req.clip_to_circle.as_ref().map(|c| {
                (
                    unit_of(Pt::new(c.center.lat, c.center.lng)),
                    c.radius_km * 1000.0,
                )
            }),
            countries,
            polygon,
            within,
            any_of,
        }
    }

    /// Whether a square of `tile` may be kept: `false` only when the clips keep none of the
    /// tile's squares.
    fn may_keep_tile(&self, index: &ThreeWordsIndex, tile: u32) -> bool {
        if self.within.is_empty() && self.countries.is_empty() && self.circle.is_none() {
            return true;
        }
        let b = tile_box(&index.scheme, tile);
        if self.within.iter().any(|w| !boxes_meet(b, *w)) {
            return false;
        }
        if !self.countries.is_empty() && !self.any_of.iter().any(|w| boxes_meet(b, *w)) {
            return false;
        }
        if let Some((centre, radius_m)) = self.circle
            && index.discs.tile_min_m(centre, tile) > radius_m
        {
            return false;
        }
        true
    }

    /// Whether any clip is given.
    fn any(&self) -> bool {
        self.req.clip_to_bounding_box.is_some()
            || self.req.clip_to_circle.is_some()
            || !self.polygon.is_empty()
            || !self.countries.is_empty()
    }

    fn keeps(&self, index: &ThreeWordsIndex, p: Pt) -> bool {
        if let Some(b) = &self.req.clip_to_bounding_box
            && !(p.lat >= b.southwest.lat
                && p.lat <= b.northeast.lat
                && p.lng >= b.southwest.lng
                && p.lng <= b.northeast.lng)
        {
            return false;
        }
        if let Some(c) = &self.req.clip_to_circle
            && haversine_m(Pt::new(c.center.lat, c.center.lng), p) > c.radius_km * 1000.0
        {
            return false;
        }
        if !self.polygon.is_empty() && !ring_contains(&self.polygon, p) {
            return false;
        }
        self.countries.is_empty() || index.in_countries(p, &self.countries)
    }
}

/// The three best distinct triples weighed so far, best first: a triple scoring more than
/// the third cannot be answered.
#[derive(Default)]
struct Best {
    top: Vec<(f64, [u32; 3])>,
}

impl Best {
    fn offer(&mut self, score: f64, ranks: [u32; 3]) {
        match self.top.iter_mut().find(|e| e.1 == ranks) {
            Some(e) => e.0 = e.0.min(score),
            None => self.top.push((score, ranks)),
        }
        self.top.sort_by(|a, b| a.0.total_cmp(&b.0));
        self.top.truncate(MAX_SUGGESTIONS);
    }

    /// The score of the third best, infinite while fewer are found.
    fn third(&self) -> f64 {
        match self.top.get(MAX_SUGGESTIONS - 1) {
            Some(e) => e.0,
            None => f64::INFINITY,
        }
    }
}

/// A scored square.
struct Scored {
    score: f64,
    region: u8,
    ranks: [u32; 3],
    square: Option<Square>,
    distance_km: Option<f64>,
}

impl Scored {
    /// Best first: by score, then the denser kind, then more common words.
    fn order(x: &Scored, y: &Scored) -> std::cmp::Ordering {
        let sum = |s: &Scored| s.ranks.iter().map(|r| u64::from(*r)).sum::<u64>();
        x.score
            .total_cmp(&y.score)
            .then_with(|| kind_position(x.region).cmp(&kind_position(y.region)))
            .then_with(|| sum(x).cmp(&sum(y)))
            .then_with(|| x.ranks.cmp(&y.ranks))
    }
}

/// The first [`MAX_SUGGESTIONS`] distinct triples of `ordered` whose square is found: their
/// indices and squares.
fn pick(index: &ThreeWordsIndex, ordered: &[Scored]) -> Vec<(usize, Square)> {
    let mut out: Vec<(usize, Square)> = Vec::with_capacity(MAX_SUGGESTIONS);
    for (i, s) in ordered.iter().enumerate() {
        if out.len() == MAX_SUGGESTIONS {
            break;
        }
        if out.iter().any(|&(o, _)| ordered[o].ranks == s.ranks) {
            continue;
        }
        if let Some(square) = s
            .square
            .or_else(|| index.scheme.square(s.ranks.map(u64::from)))
        {
            out.push((i, square));
        }
    }
    out
}

/// The best suggestions for `input`.
pub fn suggest(
    index: &ThreeWordsIndex,
    words: &Words,
    input: &Input,
    req: &AutosuggestRequest,
) -> Vec<ThreeWordsSuggestion> {
    suggest_with(index, words, input, req, true)
}

/// [`suggest`] with every combination weighed located, none dropped early: the same answer,
/// slower (the reference the early drops are checked against).
pub fn suggest_unbounded(
    index: &ThreeWordsIndex,
    words: &Words,
    input: &Input,
    req: &AutosuggestRequest,
) -> Vec<ThreeWordsSuggestion> {
    suggest_with(index, words, input, req, false)
}

fn suggest_with(
    index: &ThreeWordsIndex,
    words: &Words,
    input: &Input,
    req: &AutosuggestRequest,
    bounded: bool,
) -> Vec<ThreeWordsSuggestion> {
    let first = word_candidates(words, &input.words[0], input.voice);
    let second = word_candidates(words, &input.words[1], input.voice);
    let last = last_candidates(words, &input.last, input.voice);
    let mut pairs: Vec<(u32, u32, f32)> = first
        .iter()
        .flat_map(|&(a, ca)| second.iter().map(move |&(b, cb)| (a, b, ca + cb)))
        .collect();
    pairs.sort_by(|x, y| x.2.total_cmp(&y.2).then((x.0, x.1).cmp(&(y.0, y.1))));
    // The words in the other orders, when the third is a whole word: the few best
    // candidates of each, tried before the order typed so that they always are weighed.
    let whole_last = word_candidates(words, &input.last, input.voice);
    let mut reordered: Vec<([u32; 3], f32)> = Vec::new();
    if !whole_last.is_empty() {
        let lists = [&first, &second, &whole_last].map(|l| &l[..l.len().min(ORDER_CANDIDATES)]);
        for order in OTHER_ORDERS {
            for &(a, ca) in lists[order[0]] {
                for &(b, cb) in lists[order[1]] {
                    for &(c, cc) in lists[order[2]] {
                        reordered.push(([a, b, c], ca + cb + cc + ORDER_COST));
                    }
                }
            }
        }
    }
    let clip = Clip::new(req, index);
    let focus = req.focus.map(|f| Pt::new(f.lat, f.lng));
    // Without a focus or a clip, a candidate's score needs only its region, which its number
    // gives without the inverse permutation: only the answered squares are found.
    let placed = focus.is_some() || clip.any();
    let budget = if placed { MAX_LOCATED } else { MAX_CONVERSIONS };
    let grid = index.grid();
    let scheme = &index.scheme;
    let focus_unit = focus.filter(|_| bounded).map(unit_of);
    // Per signature, the least distance from the focus to its tiles (NaN: not yet needed).
    let mut signature_min = if focus_unit.is_some() {
        vec![f64::NAN; SIGNATURES]
    } else {
        Vec::new()
    };
    let mut best = Best::default();
    let mut scored: Vec<Scored> = Vec::new();
    let mut tried = 0usize;
    let mut weigh = |ranks: [u32; 3], cost: f32| -> bool {
        if tried >= budget {
            return false;
        }
        tried += 1;
        let wide = ranks.map(u64::from);
        let mut score = f64::from(cost);
        if !placed {
            let Some(region) = scheme.region_of(wide) else {
                return true;
            };
            if req.prefer_land && region == SEA {
                score += SEA_PENALTY;
            }
            scored.push(Scored {
                score,
                region,
                ranks,
                square: None,
                distance_km: None,
            });
            return true;
        }
        let Some(numbered) = scheme.numbered(wide) else {
            return true;
        };
        let region = numbered.region();
        if req.prefer_land && region == SEA {
            score += SEA_PENALTY;
        }
        // A triple whose score cannot reach the third best found so far is never answered:
        // drop it as soon as a lower bound of its score shows it (module notes, "Scoring").
        let third = if bounded { best.third() } else { f64::INFINITY };
        if score > third {
            return true;
        }
        // Only a bound strictly above the third drops (a NaN never does).
        let reachable = |min_m: f64| {
            let bound = score + 0.5 * (1.0 + min_m / 1000.0).log10();
            bound.partial_cmp(&third) != Some(std::cmp::Ordering::Greater)
        };
        if let Some(f) = focus_unit
            && let Some(slot) = signature_min.get_mut(numbered.signature)
        {
            if slot.is_nan() {
                *slot = index.discs.signature_min_m(scheme, f, numbered.signature);
            }
            if !reachable(*slot) {
                return true;
            }
        }
        let Some(at) = scheme.place(numbered) else {
            return true;
        };
        if bounded && !clip.may_keep_tile(index, at.tile) {
            return true;
        }
        if let Some(f) = focus_unit
            && !reachable(index.discs.tile_min_m(f, at.tile))
        {
            return true;
        }
        let Some(s) = scheme.square_of(at) else {
            return true;
        };
        let (lat, lng) = grid.centre(s);
        let centre = Pt::new(lat, lng);
        if !clip.keeps(index, centre) {
            return true;
        }
        let distance_km = focus.map(|f| haversine_m(f, centre) / 1000.0);
        if let Some(d) = distance_km {
            score += 0.5 * (1.0 + d).log10();
        }
        best.offer(score, ranks);
        scored.push(Scored {
            score,
            region,
            ranks,
            square: Some(s),
            distance_km,
        });
        true
    };
    for &(ranks, cost) in &reordered {
        weigh(ranks, cost);
    }
    'pairs: for &(a, b, pair_cost) in &pairs {
        for &(c, last_cost) in &last {
            if !weigh([a, b, c], pair_cost + last_cost) {
                break 'pairs;
            }
        }
    }
    // The answer: in order of score, kind, rank sum and ranks, a triple reached in two ways
    // (typed order and another) once, at its best. The first few in that order are found
    // without ordering all; all are ordered only when duplicates or squares that cannot be
    // found leave fewer than three among them.
    let head = ORDERED_FIRST.min(scored.len());
    if head < scored.len() {
        scored.select_nth_unstable_by(head, Scored::order);
    }
    scored[..head].sort_by(Scored::order);
    let mut answer = pick(index, &scored[..head]);
    if answer.len() < MAX_SUGGESTIONS && head < scored.len() {
        scored.sort_by(Scored::order);
        answer = pick(index, &scored);
    }
    answer
        .into_iter()
        .map(|(i, square)| (&scored[i], square))
        .enumerate()
        .map(|(i, (s, square))| {
            let at = locate_named(index, words, square, s.ranks.map(u64::from));
            ThreeWordsSuggestion {
                country: at.country,
                nearest_place: at.nearest_place,
                words: at.words,
                distance_to_focus_km: s.distance_km.map(|d| d.round() as u32),
                rank: i as u32 + 1,
                language: words.language.clone(),
                coordinates: req.coordinates.then(|| {
                    LatLng::new(super::round6(at.centre.lat), super::round6(at.centre.lng))
                }),
            }
        })
        .collect()
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    fn parse(s: &str) -> Option<Input> {
        parse_input(s, InputType::Text).unwrap()
    }

    #[test]
    fn input_is_split_folded_and_checked() {
        let i = parse("///Índex.HOME.ra").unwrap();
        assert_eq!(i.words, ["index", "home"]);
        assert_eq!(i.last, "ra");
        assert_eq!(parse("index home r").unwrap().last, "r");
        assert_eq!(parse("index。home。raft").unwrap().last, "raft");
        assert!(parse("index.home").is_none());
        assert!(parse("index.home.").is_none());
        assert!(parse("").is_none());
        assert!(parse_input("index.h0me.raft", InputType::Text).is_err());
        assert!(parse_input("a.b.c.d", InputType::Text).is_err());
        assert!(parse_input(&"a".repeat(101), InputType::Text).is_err());
        let v = parse_input("index dot home dot raft", InputType::GenericVoice)
            .unwrap()
            .unwrap();
        assert_eq!(
            (v.words.clone(), v.last.as_str(), v.voice),
            (["index".to_string(), "home".to_string()], "raft", true)
        );
    }
}
