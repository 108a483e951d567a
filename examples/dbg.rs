use compact_guardian::{record::*, transcript::*, genuine::prompt_text};
fn main() {
    let p = std::env::args().nth(1).unwrap();
    let s = scan(std::path::Path::new(&p), Part::Tail, Limits { max_bytes: 1 << 26, deadline: None }).unwrap();
    for (i, r) in s.records.iter().enumerate() {
        if let Some(t) = prompt_text(r) { println!("{i} {:?} parent {:?} side {} {:?}", r.uuid, r.parent, r.sidechain, &t[..t.len().min(40)]); }
    }
    println!("n={}", s.records.len());
}
