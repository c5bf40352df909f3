(import-macros {: spin} :spinmacros)
(spin)
