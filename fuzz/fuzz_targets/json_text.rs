#![no_main]
// Arbitrary bytes read as one JSON text by lineage's borrowed parser and by serde_json.
libfuzzer_sys::fuzz_target!(|data: &[u8]| lineage_core::fuzz::json_text(data));
