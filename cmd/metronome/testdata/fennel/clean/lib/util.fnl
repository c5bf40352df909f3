(fn add [a b] (+ a b))
{:add add}
