{
  "targets": [
    {
      "target_name": "xcrypt",
      "sources": ["xcrypt.c"],
      "cflags": ["-Wall", "-Wextra", "-Wno-unused-function"],
      "libraries": ["-lcrypt"]
    }
  ]
}
