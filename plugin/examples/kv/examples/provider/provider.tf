terraform {
  required_providers {
    kv = {
      source = "example.com/acme/kv"
    }
  }
}

# The store is a JSON file; a missing file is an empty store.
provider "kv" {
  path = "${abspath(path.module)}/store.json"
}
