import {
  to = kv_entry.greeting
  identity = {
    key = "greeting"
  }
}
