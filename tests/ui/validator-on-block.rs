use tfvalue::TfValue;

#[derive(TfValue)]
struct Rule {
    port: u16,
}

#[derive(TfValue)]
struct Firewall {
    #[tfvalue(block, requires_replace, max_length = 4)]
    rule: Vec<Rule>,
}

fn main() {}
