(fn count [] 7)
{:count count}
