;; a macro module: it runs while main.fnl compiles
(fn twice! [x]
  (list (sym "*") 2 x))
{:twice! twice!}
