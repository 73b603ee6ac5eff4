use tfvalue::{TfValue, Unknown};

#[derive(TfValue)]
struct Subnet {
    cidr: Unknown<String>,
}

#[derive(TfValue)]
struct Network {
    #[tfvalue(optional, match_by = "cidr")]
    names: Unknown<Option<Vec<String>>>,
    #[tfvalue(block, match_by = "cidr")]
    main: Unknown<Option<Subnet>>,
    #[tfvalue(block = "list", match_by = "not a name")]
    subnet: Unknown<Vec<Subnet>>,
}

fn main() {}
