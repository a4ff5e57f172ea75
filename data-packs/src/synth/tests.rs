use super::*;

#[test]
fn grid_size_follows_the_node_count() {
    for n in [10_000u64, 100_000, 1_000_000, 5_000_000] {
        let g = Grid::new(&SynthOptions::nodes(n)).g as f64;
        let approx = g * g * NODES_PER_BLOCK;
        assert!(
            (approx / n as f64 - 1.0).abs() < 0.1,
            "{n}: grid {g} gives {approx}"
        );
    }
}

#[test]
fn street_names_are_distinct_between_rows_and_columns() {
    let grid = Grid::new(&SynthOptions::nodes(5_000_000));
    let mut names = std::collections::HashSet::new();
    for k in 0..grid.g {
        assert!(names.insert(grid.street(true, k).name));
        assert!(names.insert(grid.street(false, k).name));
    }
}
