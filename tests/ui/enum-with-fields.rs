use tfvalue::TfValue;

// A string enum has unit variants only: serde writes the others as maps.
#[derive(TfValue)]
enum Size {
    Small,
    Custom { cpus: u32 },
}

fn main() {}
