// Package undoc is a synthetic package for doccheck's own tests: every kind of
// exported name appears once documented and once not.
package undoc

// Documented has a doc comment.
type Documented struct {
	// Named is documented above.
	Named    int
	Trailing int // Trailing is documented at the end of its line.
	Bare     int
	A, B     string
	hidden   int
	// Nested is documented; its exported field Inner is not.
	Nested struct {
		Inner bool
	}
	Embedded
	*Pointer
}

type Bare struct{}

type (
	// InGroup is documented within its group.
	InGroup    int
	NotInGroup int
)

// GroupDoc documents the types of its group: go doc repeats it for each.
type (
	GroupedType int
)

// Embedded is documented.
type Embedded struct{}

// Pointer is documented.
type Pointer struct{}

// Iface is documented.
type Iface interface {
	// Good is documented.
	Good()
	Bad()
	Embedded2
}

// Embedded2 is documented.
type Embedded2 interface {
	// M is documented.
	M()
}

// Func is documented.
func Func() {}

func BareFunc() {}

func unexported() {}

// Method is documented.
func (Documented) Method() {}

func (*Documented) BareMethod() {}

func (g *Generic[T]) BareGeneric() {}

// Generic is documented.
type Generic[T any] struct{}

type hiddenType struct {
	Exported int
}

func (hiddenType) Exported2() {}

// Const is documented.
const Const = 1

const BareConst = 2

// Block documents every const in it.
const (
	BlockA = iota
	BlockB
)

const (
	TrailingConst = 3 // TrailingConst is documented at the end of its line.
	BareInBlock   = 4
)

var BareVar, OtherVar = 1, 2

var _ = unexported
