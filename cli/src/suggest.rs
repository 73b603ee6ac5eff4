//! "Did you mean" suggestions for misspelt names.

/// The edit distance between two strings, in characters.
fn distance(a: &str, b: &str) -> usize {
    let b: Vec<char> = b.chars().collect();
    let mut prev: Vec<usize> = (0..=b.len()).collect();
    let mut cur = vec![0; b.len() + 1];
    for (i, ca) in a.chars().enumerate() {
        cur[0] = i + 1;
        for (j, cb) in b.iter().enumerate() {
            let sub = prev[j] + usize::from(ca != *cb);
            cur[j + 1] = sub.min(prev[j + 1] + 1).min(cur[j] + 1);
        }
        std::mem::swap(&mut prev, &mut cur);
    }
    prev[b.len()]
}

/// Up to three candidates close to `name`, closest first: within a third of its length
/// in edits (at least two), or containing it, or contained in it.
pub fn similar<'a>(name: &str, candidates: impl IntoIterator<Item = &'a str>) -> Vec<&'a str> {
    let limit = (name.chars().count() / 3).max(2);
    let lower = name.to_lowercase();
    let mut found: Vec<(usize, &str)> = candidates
        .into_iter()
        .filter_map(|c| {
            let d = distance(&lower, &c.to_lowercase());
            let near = d <= limit
                || (lower.len() >= 3 && (c.contains(name) || name.contains(c)) && !c.is_empty());
            near.then_some((d, c))
        })
        .collect();
    found.sort();
    found.dedup();
    found.into_iter().take(3).map(|(_, c)| c).collect()
}

/// `; did you mean "a" or "b"?`, or nothing when no candidate is close.
pub fn did_you_mean<'a>(name: &str, candidates: impl IntoIterator<Item = &'a str>) -> String {
    let found = similar(name, candidates);
    if found.is_empty() {
        return String::new();
    }
    let quoted: Vec<String> = found.iter().map(|c| format!("{c:?}")).collect();
    format!("; did you mean {}?", quoted.join(" or "))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn suggests_near_names() {
        assert_eq!(distance("kitten", "sitting"), 3);
        let names = ["widget_server", "widget_dns_record", "widget_volume"];
        assert_eq!(similar("widget_sever", names), ["widget_server"]);
        assert_eq!(similar("dns_record", names), ["widget_dns_record"]);
        assert!(similar("zzz", names).is_empty());
        assert_eq!(
            did_you_mean("widget_volum", names),
            "; did you mean \"widget_volume\"?"
        );
    }
}
