use std::collections::{BTreeMap, BTreeSet};

use tfvalue::{TfValue, Unknown};

#[derive(TfValue)]
struct Rule {
    #[tfvalue(at_least = 1)]
    name: Unknown<String>,
    #[tfvalue(each(pattern = "^[0-9]+$"))]
    ports: Unknown<Vec<i64>>,
    #[tfvalue(unique)]
    tags: Unknown<BTreeSet<String>>,
    #[tfvalue(keys(min_length = 1))]
    hosts: Unknown<Vec<String>>,
    #[tfvalue(each(keys(at_most = 3)))]
    labels: Unknown<Vec<BTreeMap<String, String>>>,
    #[tfvalue(none_of = ["x"])]
    enabled: Unknown<bool>,
}

fn main() {}
