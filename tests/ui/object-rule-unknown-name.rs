use tfvalue::{TfValue, Unknown};

#[derive(TfValue)]
#[tfvalue(exactly_one_of = ["cidr", "ipv6_cdr"], conflicting = ["cidr"])]
struct Subnet {
    #[tfvalue(optional, conflicts_with = ["gatway"])]
    cidr: Unknown<Option<String>>,
    #[tfvalue(optional)]
    ipv6_cidr: Unknown<Option<String>>,
    #[tfvalue(optional)]
    gateway: Unknown<Option<String>>,
}

fn main() {}
