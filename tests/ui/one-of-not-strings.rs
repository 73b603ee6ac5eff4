use tfvalue::TfValue;

#[derive(TfValue)]
struct Disk {
    #[tfvalue(one_of = ["ssd", 2])]
    kind: String,
}

fn main() {}
