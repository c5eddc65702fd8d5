package persist

import (
	"fmt"
	"io"

	"github.com/go-json-experiment/json/jsontext"
)

// A state whose rows are JSON values is also a JSON document: an object of
// sections, each an array of the rows of the bucket of that name, as the
// reference server's fixture documents are.

// WriteDocument writes to w a document of sections, in order, each holding
// the rows that rows yields for it, each a JSON value, written compact.
func WriteDocument(w io.Writer, sections []string, rows func(section string, yield func(row []byte) error) error) error {
	enc := jsontext.NewEncoder(w)
	err := enc.WriteToken(jsontext.BeginObject)
	for _, name := range sections {
		if err == nil {
			err = enc.WriteToken(jsontext.String(name))
		}
		if err == nil {
			err = enc.WriteToken(jsontext.BeginArray)
		}
		if err == nil {
			err = rows(name, func(row []byte) error { return enc.WriteValue(row) })
		}
		if err == nil {
			err = enc.WriteToken(jsontext.EndArray)
		}
	}
	if err == nil {
		err = enc.WriteToken(jsontext.EndObject)
	}
	return err
}

// Document reads the rows of the buckets sections as a document, written
// as it is read; a row that is not JSON fails the read, naming it. Close
// it once read.
func (db *DB) Document(sections []string) io.ReadCloser {
	pr, pw := io.Pipe()
	go func() {
		pw.CloseWithError(WriteDocument(pw, sections, func(section string, yield func([]byte) error) error {
			return db.Each(section, func(k, v []byte) error {
				if err := yield(v); err != nil {
					return fmt.Errorf("%s row %d: %w", section, KeyID(k), err)
				}
				return nil
			})
		}))
	}()
	return pr
}
