use tfvalue::TfValue;

// The derive cannot see through an alias: the type system checks that it can hold null.
type Id = String;

#[derive(TfValue)]
struct Server {
    #[tfvalue(computed)]
    id: Id,
}

fn main() {}
