;; A module the test requires: require finds clock.fnl beside it.
(fn format [d] (.. (/ (d:total-ms) 1000) "s"))
{: format}
