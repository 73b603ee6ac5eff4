use tfvalue::TfValue;

#[derive(TfValue)]
enum Size {
    Small,
    Large,
}

fn main() {}
