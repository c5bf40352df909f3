(fn spin [] (spin))
{:spin spin}
