//! Arbitrary bytes as hook input: parsing never panics, and any session id maps to one file name
//! inside the snapshot folder.

#![no_main]

use compact_guardian::hook_input;
use compact_guardian::store::file_name;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    if let Ok(input) = hook_input::parse(data) {
        if let Some(id) = input.session_id {
            let name = file_name(&id);
            assert!(!name.contains('/') && !name.contains('\0') && name.len() < 256);
        }
    }
});
