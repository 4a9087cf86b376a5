//! The trace corpus (`traces/<format>/*.jsonl`) and helpers to replay it in tests.
