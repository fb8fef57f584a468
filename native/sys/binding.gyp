{
  "targets": [
    {
      "target_name": "sys",
      "sources": ["sys.c"],
      "cflags": ["-Wall", "-Wextra", "-O2"]
    }
  ]
}
