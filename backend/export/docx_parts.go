package export

// Namespaces of the WordprocessingML parts.
const (
	nsW = "http://schemas.openxmlformats.org/wordprocessingml/2006/main"
	// nsR is both the r: namespace and the base of relationship types.
	nsR = "http://schemas.openxmlformats.org/officeDocument/2006/relationships"
)

// contentTypesXML declares the content type of every part DOCX writes.
const contentTypesXML = `<?xml version="1.0" encoding="UTF-8" standalone="yes"?>
<Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types">` +
	`<Default Extension="rels" ContentType="application/vnd.openxmlformats-package.relationships+xml"/>` +
	`<Default Extension="xml" ContentType="application/xml"/>` +
	`<Override PartName="/word/document.xml" ContentType="application/vnd.openxmlformats-officedocument.wordprocessingml.document.main+xml"/>` +
	`<Override PartName="/word/styles.xml" ContentType="application/vnd.openxmlformats-officedocument.wordprocessingml.styles+xml"/>` +
	`<Override PartName="/word/numbering.xml" ContentType="application/vnd.openxmlformats-officedocument.wordprocessingml.numbering+xml"/>` +
	`<Override PartName="/word/settings.xml" ContentType="application/vnd.openxmlformats-officedocument.wordprocessingml.settings+xml"/>` +
	`<Override PartName="/docProps/core.xml" ContentType="application/vnd.openxmlformats-package.core-properties+xml"/>` +
	`</Types>`

// packageRelsXML points the package at the main document and the core
// properties.
const packageRelsXML = `<?xml version="1.0" encoding="UTF-8" standalone="yes"?>
<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships">` +
	`<Relationship Id="rId1" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/officeDocument" Target="word/document.xml"/>` +
	`<Relationship Id="rId2" Type="http://schemas.openxmlformats.org/package/2006/relationships/metadata/core-properties" Target="docProps/core.xml"/>` +
	`</Relationships>`

// settingsXML keeps Word 2013+ out of compatibility mode.
const settingsXML = `<?xml version="1.0" encoding="UTF-8" standalone="yes"?>
<w:settings xmlns:w="` + nsW + `"><w:defaultTabStop w:val="720"/>` +
	`<w:characterSpacingControl w:val="doNotCompress"/>` +
	`<w:compat><w:compatSetting w:name="compatibilityMode" w:uri="http://schemas.microsoft.com/office/word" w:val="15"/></w:compat>` +
	`</w:settings>`

// stylesXML defines the styles document.xml uses. Heading1..Heading6 carry
// Word's built-in names ("heading 1"…) and outline levels so Word's
// navigation pane and LibreOffice's navigator list them. Colors follow the
// HTML export's light theme.
var stylesXML = `<?xml version="1.0" encoding="UTF-8" standalone="yes"?>
<w:styles xmlns:w="` + nsW + `">` +
	`<w:docDefaults>` +
	`<w:rPrDefault><w:rPr><w:rFonts w:ascii="Calibri" w:hAnsi="Calibri" w:cs="Calibri"/>` +
	`<w:sz w:val="22"/><w:szCs w:val="22"/><w:lang w:val="en-US" w:eastAsia="zh-CN" w:bidi="ar-SA"/></w:rPr></w:rPrDefault>` +
	`<w:pPrDefault><w:pPr><w:spacing w:after="160" w:line="288" w:lineRule="auto"/></w:pPr></w:pPrDefault>` +
	`</w:docDefaults>` +

	`<w:style w:type="paragraph" w:default="1" w:styleId="Normal"><w:name w:val="Normal"/><w:qFormat/>` +
	`<w:rPr><w:color w:val="1F2328"/></w:rPr></w:style>` +
	`<w:style w:type="character" w:default="1" w:styleId="DefaultParagraphFont"><w:name w:val="Default Paragraph Font"/>` +
	`<w:uiPriority w:val="1"/><w:semiHidden/><w:unhideWhenUsed/></w:style>` +
	`<w:style w:type="table" w:default="1" w:styleId="TableNormal"><w:name w:val="Normal Table"/>` +
	`<w:uiPriority w:val="99"/><w:semiHidden/><w:unhideWhenUsed/><w:tblPr><w:tblInd w:w="0" w:type="dxa"/>` +
	`<w:tblCellMar><w:top w:w="0" w:type="dxa"/><w:left w:w="108" w:type="dxa"/><w:bottom w:w="0" w:type="dxa"/>` +
	`<w:right w:w="108" w:type="dxa"/></w:tblCellMar></w:tblPr></w:style>` +
	`<w:style w:type="numbering" w:default="1" w:styleId="NoList"><w:name w:val="No List"/>` +
	`<w:uiPriority w:val="99"/><w:semiHidden/><w:unhideWhenUsed/></w:style>` +

	`<w:style w:type="paragraph" w:styleId="Title"><w:name w:val="Title"/><w:basedOn w:val="Normal"/>` +
	`<w:next w:val="Normal"/><w:uiPriority w:val="10"/><w:qFormat/>` +
	`<w:pPr><w:keepNext/><w:pBdr><w:bottom w:val="single" w:sz="8" w:space="4" w:color="D1D9E0"/></w:pBdr>` +
	`<w:spacing w:after="300" w:line="240" w:lineRule="auto"/><w:contextualSpacing/></w:pPr>` +
	`<w:rPr><w:b/><w:bCs/><w:kern w:val="28"/><w:sz w:val="52"/><w:szCs w:val="52"/></w:rPr></w:style>` +

	headingStyle(1, "480", "34", "") + headingStyle(2, "360", "30", "") + headingStyle(3, "280", "26", "") +
	headingStyle(4, "240", "24", "") + headingStyle(5, "200", "22", "") + headingStyle(6, "200", "22", `<w:i/><w:iCs/><w:color w:val="59636E"/>`) +

	`<w:style w:type="paragraph" w:styleId="ListParagraph"><w:name w:val="List Paragraph"/><w:basedOn w:val="Normal"/>` +
	`<w:uiPriority w:val="34"/><w:qFormat/><w:pPr><w:spacing w:after="60"/><w:contextualSpacing/></w:pPr></w:style>` +

	`<w:style w:type="paragraph" w:styleId="Quote"><w:name w:val="Quote"/><w:basedOn w:val="Normal"/>` +
	`<w:next w:val="Normal"/><w:uiPriority w:val="29"/><w:qFormat/>` +
	`<w:pPr><w:pBdr><w:left w:val="single" w:sz="18" w:space="8" w:color="D1D9E0"/></w:pBdr></w:pPr>` +
	`<w:rPr><w:color w:val="59636E"/></w:rPr></w:style>` +

	`<w:style w:type="paragraph" w:customStyle="1" w:styleId="SourceCode"><w:name w:val="Source Code"/>` +
	`<w:basedOn w:val="Normal"/><w:qFormat/>` +
	`<w:pPr><w:pBdr><w:top w:val="single" w:sz="4" w:space="4" w:color="D1D9E0"/>` +
	`<w:left w:val="single" w:sz="4" w:space="4" w:color="D1D9E0"/>` +
	`<w:bottom w:val="single" w:sz="4" w:space="4" w:color="D1D9E0"/>` +
	`<w:right w:val="single" w:sz="4" w:space="4" w:color="D1D9E0"/></w:pBdr>` +
	`<w:shd w:val="clear" w:color="auto" w:fill="F6F8FA"/><w:wordWrap w:val="0"/>` +
	`<w:spacing w:before="80" w:after="240" w:line="240" w:lineRule="auto"/><w:ind w:left="100" w:right="100"/></w:pPr>` +
	`<w:rPr><w:rFonts w:ascii="Consolas" w:hAnsi="Consolas" w:cs="Consolas"/><w:noProof/>` +
	`<w:sz w:val="19"/><w:szCs w:val="19"/></w:rPr></w:style>` +

	`<w:style w:type="character" w:customStyle="1" w:styleId="VerbatimChar"><w:name w:val="Verbatim Char"/>` +
	`<w:basedOn w:val="DefaultParagraphFont"/><w:uiPriority w:val="1"/><w:qFormat/>` +
	`<w:rPr><w:rFonts w:ascii="Consolas" w:hAnsi="Consolas" w:cs="Consolas"/><w:noProof/>` +
	`<w:sz w:val="20"/><w:szCs w:val="20"/><w:shd w:val="clear" w:color="auto" w:fill="EFF2F5"/></w:rPr></w:style>` +

	`<w:style w:type="character" w:styleId="Hyperlink"><w:name w:val="Hyperlink"/>` +
	`<w:basedOn w:val="DefaultParagraphFont"/><w:uiPriority w:val="99"/><w:unhideWhenUsed/>` +
	`<w:rPr><w:color w:val="0563C1"/><w:u w:val="single"/></w:rPr></w:style>` +
	`</w:styles>`

// headingStyle returns the style for heading level (1-6): space before in
// twips, size in half-points and extra run properties (placed after w:bCs
// and before w:sz, as the schema orders them).
func headingStyle(level int, before, size, extraRPr string) string {
	n := string(rune('0' + level))
	return `<w:style w:type="paragraph" w:styleId="Heading` + n + `"><w:name w:val="heading ` + n + `"/>` +
		`<w:basedOn w:val="Normal"/><w:next w:val="Normal"/><w:uiPriority w:val="9"/><w:qFormat/>` +
		`<w:pPr><w:keepNext/><w:keepLines/><w:spacing w:before="` + before + `" w:after="120"/>` +
		`<w:outlineLvl w:val="` + string(rune('0'+level-1)) + `"/></w:pPr>` +
		`<w:rPr><w:b/><w:bCs/>` + extraRPr + `<w:sz w:val="` + size + `"/><w:szCs w:val="` + size + `"/></w:rPr></w:style>`
}
