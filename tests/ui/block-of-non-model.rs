use tfvalue::TfValue;

struct Rule {
    port: u16,
}

#[derive(TfValue)]
struct Firewall {
    #[tfvalue(block)]
    rule: Vec<Rule>,
}

fn main() {}
