//! Arbitrary bytes as hook input, through the bounded streaming reader the hooks use: it never
//! panics, any session id maps to one file name inside the snapshot folder, and every kept string
//! is bounded.

#![no_main]

use compact_guardian::input::hook_input::{self, MAX_STRING};
use compact_guardian::store::file_name;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let streamed = hook_input::read(data);
    if let Ok(input) = &streamed {
        for s in [&input.session_id, &input.custom_instructions, &input.transcript_path] {
            assert!(s.as_ref().is_none_or(|s| s.len() <= MAX_STRING + 3));
        }
        if let Some(id) = &input.session_id {
            let name = file_name(id);
            assert!(!name.contains('/') && !name.contains('\0') && name.len() < 256);
        }
    }
    // Small input with no long string: streaming changes nothing but whitespace.
    if data.len() < MAX_STRING
        && let Ok(direct) = hook_input::parse(data)
    {
        assert_eq!(streamed.ok(), Some(direct));
    }
});
