package undoc

func TestHelperWithoutDoc() {}

type Fixture struct{ Field int }
