error("cannot load")
