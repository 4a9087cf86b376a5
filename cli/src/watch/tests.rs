//! Screens of `lineage watch` rendered on ratatui's `TestBackend`.
