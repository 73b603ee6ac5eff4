#![allow(missing_docs)] // criterion_group! and criterion_main! generate public items

//! Normalization: tfvalue's (Terraform's NFC, what every string written goes through, and
//! the standard one) against the unicode-normalization crate on the same text, already
//! normal and not.

use criterion::{criterion_group, criterion_main, Criterion};
use std::hint::black_box;
use unicode_normalization::{is_nfc_quick, IsNormalized, UnicodeNormalization};

/// What the crate did before it had its own tables.
fn crate_nfc(s: &str) -> std::borrow::Cow<'_, str> {
    if s.is_ascii() || is_nfc_quick(s.chars()) == IsNormalized::Yes {
        return s.into();
    }
    s.nfc().collect::<String>().into()
}

fn benches(c: &mut Criterion) {
    let texts = [
        ("latin_nfc", "Zoë café naïve Ångström ".repeat(400)),
        ("greek_cjk_hangul_nfc", "καλημέρα 東京都 서울 ".repeat(400)),
        ("nfd_marks", "e\u{301}a\u{308}o\u{302} ".repeat(400)),
    ];
    for (name, text) in &texts {
        let mut g = c.benchmark_group(format!("text/{name}"));
        g.throughput(criterion::Throughput::Bytes(text.len() as u64));
        g.bench_function("tfvalue_normalize", |b| {
            b.iter(|| tfvalue::text::normalize(black_box(text)).len())
        });
        g.bench_function("tfvalue_normalize_unicode", |b| {
            b.iter(|| tfvalue::text::normalize_unicode(black_box(text)).len())
        });
        g.bench_function("unicode_normalization", |b| {
            b.iter(|| crate_nfc(black_box(text)).len())
        });
        g.finish();
    }
}

criterion_group! {
    name = text;
    config = Criterion::default()
        .warm_up_time(std::time::Duration::from_secs(1))
        .measurement_time(std::time::Duration::from_secs(3));
    targets = benches
}
criterion_main!(text);
