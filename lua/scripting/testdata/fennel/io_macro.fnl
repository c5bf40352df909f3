(import-macros {: reader} :iomacros)
(reader)
