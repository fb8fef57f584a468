{
  "targets": [
    {
      "target_name": "snappy",
      "sources": ["snappy.c"],
      "cflags": ["-Wall", "-Wextra", "-O2", "-Wno-unused-function"],
      "libraries": ["-lsnappy"]
    }
  ]
}
